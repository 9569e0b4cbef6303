import type { Timers } from './coalescer.ts'

/**
 * When to checkpoint the full document: `delayMs` after the last change (debounced), but never later
 * than `10 × delayMs` after the first change of a busy stretch, so constant typing still checkpoints.
 */
export class CheckpointSchedule {
  readonly #timers: Timers
  readonly #delayMs: number
  readonly #run: () => void
  #timer: unknown = undefined
  #firstDirtyAt: number | null = null

  constructor(timers: Timers, delayMs: number, run: () => void) {
    this.#timers = timers
    this.#delayMs = delayMs
    this.#run = run
  }

  /** Something changed. */
  touch(): void {
    const now = this.#timers.now()
    this.#firstDirtyAt ??= now
    this.#timers.clearTimeout(this.#timer)
    const delay = Math.min(this.#delayMs, Math.max(0, this.#firstDirtyAt + 10 * this.#delayMs - now))
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined
      this.#firstDirtyAt = null
      this.#run()
    }, delay)
  }

  /** A checkpoint is being taken now by other means (page hide, close): drop the pending one. */
  cancel(): void {
    this.#timers.clearTimeout(this.#timer)
    this.#timer = undefined
    this.#firstDirtyAt = null
  }
}
