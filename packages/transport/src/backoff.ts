/**
 * Reconnect delays: exponential growth with "equal jitter" and a cap.
 *
 * Half of each delay is fixed and half is random, so a crowd of browsers that lost the same sidecar
 * spreads out instead of reconnecting in lock-step, yet no retry comes sooner than half the nominal
 * delay (plain "full jitter" allows 0 ms retries, which hammers a sidecar that refuses at once).
 */

/** Tunables of {@link nextDelay}. */
export interface BackoffOptions {
  /** Nominal delay of the first retry, in ms. */
  readonly baseMs: number
  /** Upper bound of any delay, in ms. */
  readonly maxMs: number
  /** Growth per attempt. */
  readonly factor: number
}

/** Defaults: 250 ms, doubling, capped at 30 s (hocuspocus caps at 30 s, y-websocket at 2.5 s). */
export const DEFAULT_BACKOFF: BackoffOptions = Object.freeze({ baseMs: 250, maxMs: 30_000, factor: 2 })

/**
 * Delay before reconnect attempt number `attempt` (0 = first retry after a loss).
 *
 * Pure: the randomness comes from `rng`, a function returning numbers in [0, 1).
 * @param attempt - consecutive failed or short-lived connections so far (non-negative integer)
 * @param rng - uniform random source in [0, 1)
 * @param options - base, cap and factor
 * @returns a delay in ms within [nominal / 2, nominal], where nominal = min(maxMs, baseMs * factor^attempt)
 */
export function nextDelay(attempt: number, rng: () => number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const safeAttempt = Number.isFinite(attempt) && attempt > 0 ? Math.floor(attempt) : 0
  // Math.min before the power would overflow to Infinity for large attempts; clamp the exponent.
  const nominal = Math.min(options.maxMs, options.baseMs * options.factor ** Math.min(safeAttempt, 64))
  const r = rng()
  const unit = r >= 0 && r < 1 ? r : 0
  return Math.round(nominal / 2 + unit * (nominal / 2))
}
