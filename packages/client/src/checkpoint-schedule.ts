import type { Timers } from '@e2e-col/sync'

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
  #lastTouchAt = 0

  constructor(timers: Timers, delayMs: number, run: () => void) {
    this.#timers = timers
    this.#delayMs = delayMs
    this.#run = run
  }

  /**
   * Something changed. Called for every transaction, so it only records the time: the one armed
   * timer re-arms itself when it fires early (a debounce without a clearTimeout/setTimeout pair per
   * keystroke).
   */
  touch(): void {
    const now = this.#timers.now()
    this.#firstDirtyAt ??= now
    this.#lastTouchAt = now
    if (this.#timer === undefined) this.#arm(now)
  }

  /** A checkpoint is being taken now by other means (page hide, close): drop the pending one. */
  cancel(): void {
    this.#timers.clearTimeout(this.#timer)
    this.#timer = undefined
    this.#firstDirtyAt = null
  }

  #dueAt(): number {
    const first = this.#firstDirtyAt ?? this.#lastTouchAt
    return Math.min(this.#lastTouchAt + this.#delayMs, first + 10 * this.#delayMs)
  }

  #arm(now: number): void {
    this.#timer = this.#timers.setTimeout(() => this.#fire(), Math.max(0, this.#dueAt() - now))
  }

  #fire(): void {
    this.#timer = undefined
    const now = this.#timers.now()
    // A wall clock set back since the last touch (NTP, a resumed VM) would postpone the
    // checkpoint for as long: take it now instead.
    if (now >= this.#lastTouchAt && now < this.#dueAt()) {
      this.#arm(now)
      return
    }
    this.#firstDirtyAt = null
    this.#run()
  }
}
