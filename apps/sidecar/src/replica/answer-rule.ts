/**
 * Who answers a group member's `sync-request`, decided by every member alike without talking:
 * the members who may answer (everyone but the asker) are ordered by a hash of the request's id
 * and their own key, and the one ranked first answers after the usual short delay. The one ranked
 * r waits r fallback bounds, and answers only if no answer covering the asker was seen by then.
 * A fallback bound scales with the answer's size: the time its bodies take to go out at the
 * group's pace, twice over, plus a base for the round trip. So one request costs the group one
 * answer, and more only when the members before it are absent or slow.
 * @see docs/sidecar.md §8.4
 */
import { createHash } from 'node:crypto'

/**
 * This member's place (0 first) among the members who may answer the request `requestId` from
 * `asker`. A member that does not know its own key, or is not listed, ranks after everyone.
 */
export function answerRank(
  requestId: string,
  self: string | undefined,
  members: readonly string[],
  asker: string,
): number {
  const candidates = [...new Set(members)].filter((m) => m !== asker)
  if (self === undefined || !candidates.includes(self)) return candidates.length
  const order = (m: string): string => createHash('sha256').update(`${requestId}\n${m}`).digest('hex')
  const mine = order(self)
  return candidates.filter((m) => m !== self && order(m) < mine).length
}

export interface FallbackOptions {
  /** Round trip and delivery allowance. */
  readonly baseMs: number
  /** Milliseconds between two bodies at the group's pace. */
  readonly sendIntervalMs: number
  /** Frame bytes one body carries. */
  readonly bodyFrameBytes: number
}

/**
 * Answer bytes allowed one body's time when the answer goes as one attachment (every member reads
 * attachments): its upload and download, generously, rather than the thousands of text bodies the
 * same bytes would fill (a 10 MB answer: about 4 hours as text, 80 s this way).
 */
export const ATTACHMENT_BYTES_PER_BODY = 256 * 1024

/**
 * How long a member waits for an earlier-ranked one's answer of `answerBytes` (`asAttachment`: the
 * group takes large answers as one attachment).
 */
export function fallbackMs(answerBytes: number, o: FallbackOptions, asAttachment = false): number {
  const perBody = asAttachment ? Math.max(o.bodyFrameBytes, ATTACHMENT_BYTES_PER_BODY) : o.bodyFrameBytes
  const bodies = Math.max(1, Math.ceil(answerBytes / perBody))
  return o.baseMs + 2 * bodies * o.sendIntervalMs
}
