/**
 * Posting to the chat group: every chunk waits for a passing membership check (withheld and
 * retried with backoff otherwise) and every sent timestamp is remembered, so the echo of our own
 * post is recognised by id.
 */
import type { ChatSignal } from '../signal/port.ts'
import { backoffDelay, pause } from './backoff.ts'
import { chunkReply } from './chunker.ts'
import type { DaemonHealth } from './daemon-health.ts'
import { checkMembership } from './membership.ts'
import { formatDuration } from './messages.ts'
import { createSentTimestamps } from './sent-timestamps.ts'

export interface PosterOptions {
  signal: ChatSignal
  groupId: string
  /** The loop's account and the operators: nobody else may be in the group when we post. */
  allowed: ReadonlySet<string>
  health: DaemonHealth
  membershipBaseMs: number
  membershipMaxMs: number
  log(line: string): void
  onWithheld(reason: string, remaining: number): Promise<void>
  onPosted(text: string, timestamp: number): Promise<void>
}

export interface Poster {
  /** Posts already-redacted text, chunked; false when `abort` ended it before the last chunk. */
  post(text: string, abort: AbortSignal): Promise<boolean>
  isOwnPost(timestamp: number): boolean
  /** Resolves once every send in flight has its timestamp (the echo of one may arrive first). */
  settled(): Promise<void>
  lastCheck(): { at: number; ok: boolean } | undefined
}

export function createPoster(o: PosterOptions): Poster {
  const sent = createSentTimestamps()
  const inflight = new Set<Promise<number>>()
  let last: { at: number; ok: boolean } | undefined

  async function waitForCleanGroup(remaining: number, abort: AbortSignal): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      if (abort.aborted) return false
      const m = await o.health.call('listGroups', () => o.signal.groupMembership(o.groupId), abort)
      const verdict = checkMembership(m, o.allowed)
      last = { at: Date.now(), ok: verdict.ok }
      if (verdict.ok) return true
      const delay = backoffDelay(attempt, { baseMs: o.membershipBaseMs, maxMs: o.membershipMaxMs })
      o.log(`membership check failed (${verdict.reason}): withholding ${remaining} message(s); checking again in ${formatDuration(delay)}`)
      await o.onWithheld(verdict.reason, remaining)
      await pause(delay, abort)
    }
  }

  return {
    async post(text, abort) {
      const chunks = chunkReply(text)
      for (const [i, chunk] of chunks.entries()) {
        if (!(await waitForCleanGroup(chunks.length - i, abort))) return false
        // Remembered inside the in-flight promise, so settled() never resolves before it is known.
        const sending = o.health.call('send', () => o.signal.sendGroup(o.groupId, chunk), abort).then((t) => {
          sent.remember(t)
          return t
        })
        inflight.add(sending)
        const timestamp = await sending.finally(() => inflight.delete(sending))
        await o.onPosted(chunk, timestamp)
      }
      return true
    },
    isOwnPost: (t) => sent.has(t),
    async settled() {
      if (inflight.size > 0) await Promise.allSettled(inflight)
    },
    lastCheck: () => last,
  }
}
