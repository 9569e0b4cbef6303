/**
 * Waits on something a reader keeps adding to (events read, stream text): each wait checks at once
 * and again on every {@link Waiters.notify}, and fails after its deadline with what it waited for.
 */

/** The pending waits of one reader. */
export interface Waiters {
  /** Checks every pending wait again (after the reader added something, or when it ends). */
  notify(): void
  /** Resolves with the first defined answer of `probe`; rejects with `timedOut()`'s text after `timeoutMs`. */
  wait<T>(probe: () => T | undefined, timeoutMs: number, timedOut: () => string): Promise<T>
}

export function waiters(): Waiters {
  const pending = new Set<() => void>()
  return {
    notify() {
      for (const check of pending) check()
    },
    wait: (probe, timeoutMs, timedOut) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = probe()
          if (found === undefined) return
          pending.delete(check)
          clearTimeout(timer)
          resolve(found)
        }
        const timer = setTimeout(() => {
          pending.delete(check)
          reject(new Error(timedOut()))
        }, timeoutMs)
        pending.add(check)
        check()
      }),
  }
}
