import type { InboundMessage } from '../signal/port.ts'

/** Who and where the loop listens for. */
export interface GateConfig {
  /** The loop's own account (E.164). */
  account: string
  /** The chat group's id (base64, compared exactly). */
  groupId: string
  /** E.164 numbers allowed to drive the agent. Empty denies everyone. */
  operators: ReadonlySet<string>
  /** Timestamps of the loop's own posts. */
  isOwnPost(timestamp: number): boolean
}

/** Why a message was not taken; stable names for local logs and tests. */
export type GateRejection =
  | 'other-account'
  | 'other-group'
  | 'empty'
  | 'own-post'
  | 'no-operators'
  | 'not-operator'
  | 'sync-not-own-account'
  | 'sync-not-primary-device'
  | 'own-account-data'
  | 'no-timestamp'

/** The verdict for one message. */
export type GateVerdict = { accepted: true; sender: string; text: string } | { accepted: false; reason: GateRejection }

/**
 * Fails closed: the group id must match, the body be non-empty, the sender an operator (an empty
 * list admits nobody), our own posts are dropped by their sent timestamps, and a sync copy (our
 * own account typing on another device) is taken only from device 1, the primary phone, and only
 * when the account's own number is an operator.
 */
export function gate(msg: InboundMessage, config: GateConfig): GateVerdict {
  if (msg.account !== undefined && msg.account !== config.account) return { accepted: false, reason: 'other-account' }
  if (msg.groupId !== config.groupId) return { accepted: false, reason: 'other-group' }
  // Without its sent timestamp a message cannot be told from our own posts: fail closed.
  if (msg.timestamp === undefined) return { accepted: false, reason: 'no-timestamp' }
  if (config.isOwnPost(msg.timestamp)) return { accepted: false, reason: 'own-post' }
  if (msg.body.trim() === '') return { accepted: false, reason: 'empty' }
  if (config.operators.size === 0) return { accepted: false, reason: 'no-operators' }
  const sender = msg.sourceNumber
  if (msg.origin === 'sync') {
    if (sender !== config.account) return { accepted: false, reason: 'sync-not-own-account' }
    if (msg.sourceDevice !== 1) return { accepted: false, reason: 'sync-not-primary-device' }
  } else if (sender === config.account) {
    // A plain dataMessage "from" our own number is not something signal-cli produces for a human.
    return { accepted: false, reason: 'own-account-data' }
  }
  if (sender === undefined || !config.operators.has(sender)) return { accepted: false, reason: 'not-operator' }
  return { accepted: true, sender, text: msg.body }
}
