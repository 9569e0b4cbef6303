/** Exponential backoff with full jitter: `min(base·2^attempt, max)` scaled by `rng()` in [0.5, 1). */
export function backoffDelay(attempt: number, options: { baseMs: number; maxMs: number; rng?: () => number }): number {
  const ceiling = Math.min(options.baseMs * 2 ** Math.min(attempt, 30), options.maxMs)
  const rng = options.rng ?? Math.random
  return Math.round(ceiling * (0.5 + rng() / 2))
}

/** Sleeps `ms`, or less if `signal` aborts first (resolves either way). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
