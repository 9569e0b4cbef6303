/**
 * Jittered exponential backoff as a pure function: the delay before attempt `attempt` (0-based)
 * is uniform in [d/2, d] with d = min(maxMs, baseMs * 2^attempt). The jitter spreads reconnects of
 * many sidecars after a daemon restart.
 */
export interface BackoffPolicy {
  readonly baseMs: number
  readonly maxMs: number
}

/** Delay in ms before the given attempt; `rng` returns a number in [0, 1). */
export function nextDelay(attempt: number, policy: BackoffPolicy, rng: () => number): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt, 52))
  return Math.round(ceiling / 2 + (rng() * ceiling) / 2)
}
