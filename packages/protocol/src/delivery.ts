/**
 * The payload of a `delivery` envelope (sidecar → its browsers only): how far this document's
 * local changes have got. UTF-8 JSON, so a page can show it as it is:
 * `{"signal":"unreachable","since":1764581000000,"unsent":3,"sent":["<messageId>",…],"reason":"…"}`.
 *
 * - `signal`: the sidecar's view of Signal: `reachable`; `unreachable` (the daemon answers but
 *   cannot reach Signal's servers: no network); `daemon-down` (signal-cli does not answer);
 *   `refused` (Signal definitely refused the last send of this document; `reason` says why).
 * - `since`: when `signal` entered that state (ms since the epoch), null while reachable.
 * - `unsent`: changes the sidecar holds durably that Signal has not accepted yet.
 * - `sent`: message ids Signal accepted since the last note (at most {@link MAX_SENT_IDS}).
 * - `role` (optional): `viewer` when this account may only view the document (its sidecar refuses
 *   the page's changes with `SIDECAR_READ_ONLY`); absent or `editor` otherwise. A sidecar sends a
 *   note when the role changes.
 * - `author` (optional): the account's author tag (`author-id.ts`): the page writes under client ids
 *   made from it, so every member can tell its edits are this account's (docs/decisions/0023).
 * @see docs/protocol.md §3.3, docs/sidecar.md §4.3
 */
import { isAuthorTag } from './author-id.ts'
import { isMessageId } from './ids.ts'

export const SIGNAL_STATES = ['reachable', 'unreachable', 'daemon-down', 'refused'] as const
export type SignalState = (typeof SIGNAL_STATES)[number]

/** What this account may do in the document. */
export type DocRole = 'editor' | 'commenter' | 'viewer'

/** Most ids one note carries (a note is sent per Signal send, which holds at most this many). */
export const MAX_SENT_IDS = 1024
/** Longest `reason` carried (it ends up in the UI). */
export const MAX_REASON_CHARS = 300

export interface DeliveryNote {
  readonly signal: SignalState
  readonly since: number | null
  readonly unsent: number
  readonly sent: readonly string[]
  readonly reason?: string
  /** Absent from a sidecar without roles: the page edits. */
  readonly role?: DocRole
  /** The account's author tag; absent from a sidecar before decision 0023. */
  readonly author?: number
}

// The WHATWG Encoding API exists in every runtime the protocol targets; typed here because the
// package compiles without DOM or Node types (its purity check).
interface TextCodecs {
  readonly TextEncoder: new () => { encode(text: string): Uint8Array }
  readonly TextDecoder: new (label: string, options: { fatal: boolean }) => { decode(bytes: Uint8Array): string }
}
const codecs = globalThis as unknown as TextCodecs

export function encodeDeliveryNote(note: DeliveryNote): Uint8Array {
  const body: Record<string, unknown> = {
    signal: note.signal,
    since: note.since,
    unsent: note.unsent,
    sent: note.sent.slice(0, MAX_SENT_IDS),
  }
  if (note.reason !== undefined) body['reason'] = note.reason.slice(0, MAX_REASON_CHARS)
  if (note.role !== undefined) body['role'] = note.role
  if (note.author !== undefined) body['author'] = note.author
  return new codecs.TextEncoder().encode(JSON.stringify(body))
}

/** The note in `payload`, or undefined when it is not one (a page then ignores the envelope). */
export function decodeDeliveryNote(payload: Uint8Array): DeliveryNote | undefined {
  let body: unknown
  try {
    body = JSON.parse(new codecs.TextDecoder('utf-8', { fatal: true }).decode(payload))
  } catch {
    return undefined
  }
  if (typeof body !== 'object' || body === null) return undefined
  const b = body as Record<string, unknown>
  const signal = b['signal']
  if (typeof signal !== 'string' || !(SIGNAL_STATES as readonly string[]).includes(signal)) return undefined
  const since = b['since']
  if (since !== null && !(typeof since === 'number' && Number.isSafeInteger(since) && since >= 0)) return undefined
  const unsent = b['unsent']
  if (typeof unsent !== 'number' || !Number.isSafeInteger(unsent) || unsent < 0) return undefined
  const sent = b['sent']
  if (
    !Array.isArray(sent) ||
    sent.length > MAX_SENT_IDS ||
    !sent.every((id) => typeof id === 'string' && isMessageId(id))
  )
    return undefined
  const reason = b['reason']
  if (reason !== undefined && typeof reason !== 'string') return undefined
  // An unknown role (a later version's) is read as none: the page keeps what it shows.
  const role = b['role'] === 'editor' || b['role'] === 'commenter' || b['role'] === 'viewer' ? b['role'] : undefined
  // Not a tag (a later version's form, or junk) is read as none: the page keeps Yjs's own id.
  const author = isAuthorTag(b['author']) ? b['author'] : undefined
  return {
    signal: signal as SignalState,
    since,
    unsent,
    sent: sent as string[],
    ...(reason === undefined ? {} : { reason: reason.slice(0, MAX_REASON_CHARS) }),
    ...(role === undefined ? {} : { role }),
    ...(author === undefined ? {} : { author }),
  }
}
