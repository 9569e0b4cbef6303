import { nextDelay } from '@e2e-col/signal-cli'

/** The sidecar's jittered exponential backoff: uniform in [d/2, d] with d = min(base·2^attempt, max). */
export function backoffDelay(attempt: number, options: { baseMs: number; maxMs: number; rng?: () => number }): number {
  return nextDelay(attempt, options, options.rng ?? Math.random)
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
