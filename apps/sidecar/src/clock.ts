/**
 * The hidden inputs (time, randomness, timers) in one injectable bundle, so the queue, the
 * pacing, group sync and the reconnect loop can be driven by tests. Time and timers are the
 * {@link Timers} of `@e2e-col/sync`, the same seam the browser client runs on.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { systemTimers, type Timers } from '@e2e-col/sync'

export interface Clock extends Timers {
  rng: () => number
  /** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>
  /** 32 lowercase hex chars (128 random bits). */
  newMessageId: () => string
  newUuid: () => string
}

export const systemClock: Clock = {
  ...systemTimers,
  rng: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve()
      const done = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      signal.addEventListener('abort', done, { once: true })
    }),
  newMessageId: () => randomBytes(16).toString('hex'),
  newUuid: () => randomUUID(),
}
