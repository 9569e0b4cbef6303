/**
 * The pace of one group's sends: the token bucket (one token per body), Signal's inbound byte
 * budget (shared by the account's groups: a body's bytes), the linger between two sends of new
 * envelopes (so envelopes that arrive meanwhile ride along in one send), and the pause Signal asks
 * for when it rate limits.
 * @see docs/sidecar.md §4.2
 */
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { TokenBucket } from './token-bucket.ts'

// A -5 without a usable retryAfterSeconds still pauses the group for this long.
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 60_000

export interface PaceOptions {
  bucket: TokenBucket
  /** Signal's inbound byte budget (tokens are bytes), shared by the account's queues. */
  inboundBytes?: TokenBucket
  /** Least time between the starts of two sends of new envelopes (0: none). */
  minIntervalMs: number
  now: () => number
  /** Resolves after `ms` or when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>
  /** Aborted when the queue closes: every wait ends. */
  signal: AbortSignal
  metrics: Metrics
  logger: Logger
}

export interface Pace {
  /** Waits for one token; false when the queue closed meanwhile. */
  takeToken(): Promise<boolean>
  /** Waits until `bytes` fit Signal's inbound byte budget and takes them; false when closed meanwhile. */
  takeBytes(bytes: number): Promise<boolean>
  /**
   * The send of `bytes` taken at `takenAt` has ended: Signal counted them somewhere in between, so
   * they count from now (a slow send must not let the next one in early).
   */
  bytesLanded(bytes: number, takenAt: number): void
  /** Waits out the least interval since the last send of new envelopes; false when closed meanwhile. */
  linger(): Promise<boolean>
  /** A send of new envelopes starts now (the next linger counts from here). */
  started(): void
  /** Signal rate limited a send: the group pauses for its `retryAfterSeconds`, or the default. */
  rateLimited(retryAfterSeconds: number | undefined): void
}

export function createPace(o: PaceOptions): Pace {
  let lastBatchAt = -Infinity
  return {
    async takeToken() {
      for (;;) {
        if (o.signal.aborted) return false
        if (o.bucket.tryTake(o.now())) return true
        await o.sleep(o.bucket.waitMs(o.now()), o.signal)
      }
    },
    async takeBytes(bytes) {
      const budget = o.inboundBytes
      if (budget === undefined) return !o.signal.aborted
      let logged = false
      for (;;) {
        if (o.signal.aborted) return false
        if (budget.tryTake(o.now(), bytes)) return true
        const ms = budget.waitMs(o.now(), bytes)
        if (!logged) o.logger.info({ bytes, waitMs: ms }, "waiting for Signal's inbound byte budget")
        logged = true
        await o.sleep(ms, o.signal)
      }
    },
    bytesLanded(bytes, takenAt) {
      o.inboundBytes?.countFrom(o.now(), takenAt, bytes)
    },
    async linger() {
      const wait = lastBatchAt + o.minIntervalMs - o.now()
      if (wait > 0) await o.sleep(wait, o.signal)
      return !o.signal.aborted
    },
    started() {
      lastBatchAt = o.now()
    },
    rateLimited(retryAfterSeconds) {
      o.metrics.rateLimited.inc()
      const ms = retryAfterSeconds === undefined ? DEFAULT_RATE_LIMIT_PAUSE_MS : retryAfterSeconds * 1000
      o.bucket.pauseUntil(o.now() + ms)
      o.logger.warn({ groupPauseMs: ms }, 'Signal asked to slow down; pausing this group')
    },
  }
}
