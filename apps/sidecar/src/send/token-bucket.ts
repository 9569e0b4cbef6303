/**
 * A token bucket as plain state plus pure time arithmetic (time is always an argument). It paces
 * one group's sends: a sustained `ratePerSecond` with bursts of up to `burst` sends. A rate-limit
 * answer from Signal can hold the bucket empty until a given time.
 */
export interface TokenBucket {
  /** Milliseconds until a token is available (0 = now). */
  waitMs(now: number): number
  /** Takes one token if available; returns whether it did. */
  tryTake(now: number): boolean
  /** No token is handed out before `until` (ms epoch); later calls only ever extend the pause. */
  pauseUntil(until: number): void
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
    waitMs(now) {
      refill(now)
      const pause = Math.max(0, pausedUntil - now)
      const refillWait = tokens >= 1 ? 0 : Math.ceil((1 - tokens) / perMs)
      return Math.max(pause, refillWait)
    },
    tryTake(now) {
      if (this.waitMs(now) > 0) return false
      tokens -= 1
      return true
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
