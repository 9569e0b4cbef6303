/**
 * A token bucket as plain state plus pure time arithmetic (time is always an argument). It paces
 * one group's sends: a sustained `ratePerSecond` with bursts of up to `burst` sends; or, with
 * tokens counted in bytes, the bytes Signal lets reach a recipient. A rate-limit answer from
 * Signal can hold the bucket empty until a given time.
 */
export interface TokenBucket {
  /**
   * Milliseconds until `n` tokens (default 1) are available (0 = now). More than `burst` waits for
   * a full bucket: a take larger than the bucket goes once it is full, leaving it in debt.
   */
  waitMs(now: number, n?: number): number
  /** Takes `n` tokens (default 1) if available; returns whether it did. */
  tryTake(now: number, n?: number): boolean
  /** No token is handed out before `until` (ms epoch); later calls only ever extend the pause. */
  pauseUntil(until: number): void
  /**
   * `n` tokens taken at `takenAt` count from `now` instead (a send Signal counted when it arrived,
   * not when it was paced): the refill they earned meanwhile, at most `n`, is taken back.
   */
  countFrom(now: number, takenAt: number, n: number): void
}

export function createTokenBucket(options: { ratePerSecond: number; burst: number; now: number }): TokenBucket {
  const perMs = options.ratePerSecond / 1000
  let tokens = options.burst
  let updated = options.now
  let pausedUntil = -Infinity

  function refill(now: number): void {
    if (now > updated) {
      tokens = Math.min(options.burst, tokens + (now - updated) * perMs)
      updated = now
    }
  }

  return {
    waitMs(now, n = 1) {
      refill(now)
      const need = Math.min(n, options.burst)
      const pause = Math.max(0, pausedUntil - now)
      const refillWait = tokens >= need ? 0 : Math.ceil((need - tokens) / perMs)
      return Math.max(pause, refillWait)
    },
    tryTake(now, n = 1) {
      if (this.waitMs(now, n) > 0) return false
      tokens -= n
      return true
    },
    countFrom(now, takenAt, n) {
      refill(now)
      tokens -= Math.min(n, Math.max(0, now - takenAt) * perMs)
    },
    pauseUntil(until) {
      if (until > pausedUntil) {
        pausedUntil = until
        // The pause replaces the burst: after it, sends resume at the sustained pace.
        tokens = Math.min(tokens, 1)
        updated = Math.max(updated, until)
      }
    },
  }
}
