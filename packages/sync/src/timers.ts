/**
 * Time and timers in one injectable seam, used on both sides of the wire (the browser client and
 * the sidecar), so tests drive them by hand instead of waiting.
 */
export interface Timers {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** The platform's timers. */
export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
}
