/**
 * Lifting plain text of a chat group into `chat-*` payloads for browsers, so a console shows the
 * whole conversation even when no loop is attached to this sidecar: an operator's text becomes a
 * `chat-prompt`, the loop account's text a `chat-reply`. Anything else (strangers, `e2e-col:`
 * machine bodies, empty text) is not shown.
 * @see docs/sidecar.md §4.9
 */
import { BODY_NAMESPACE } from '@e2e-col/protocol'
import type { SignalMessage } from '@e2e-col/signal-cli'

/** A `chat-*` payload as JSON, with its kind. */
export type LiftedPayload =
  | { kind: 'chat-prompt'; payload: { text: string; from: 'phone'; ref: string } }
  | { kind: 'chat-reply'; payload: { text: string } }

export interface LiftRules {
  operators: ReadonlySet<string>
  /** The account the chat loop posts from. */
  loopAccount: string | undefined
}

export function liftMessage(msg: SignalMessage, rules: LiftRules): LiftedPayload | undefined {
  const text = msg.body
  if (text.trim() === '' || text.startsWith(BODY_NAMESPACE) || msg.sourceNumber === undefined) return undefined
  // With signal-cli linked to an operator's own number, what they type on the primary phone
  // (a sync copy from device 1) is theirs, not the loop's.
  const typedOnPrimary = msg.origin === 'sync' && msg.sourceDevice === 1 && rules.operators.has(msg.sourceNumber)
  if (msg.sourceNumber === rules.loopAccount && !typedOnPrimary) return { kind: 'chat-reply', payload: { text } }
  if (rules.operators.has(msg.sourceNumber))
    return { kind: 'chat-prompt', payload: { text, from: 'phone', ref: String(msg.timestamp ?? '') } }
  return undefined
}
