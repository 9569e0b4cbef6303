/**
 * The sidecar refuses frames beyond its per-connection rate (`SIDECAR_RATE_LIMITED`; 200 frames/s,
 * burst 400 by default) with an error envelope under a fresh message id: it refuses before it
 * decodes, so the page cannot tell which frame it was. Nothing is lost, since every unacknowledged
 * change is still in the outbox, but nothing would send it again before the next reconnect. So the
 * binding holds all sends for a while (the sidecar's bucket refills), then sends every
 * unacknowledged entry again under its own id; the sidecar acknowledges a replay of an id it
 * already took without sending it twice. A refusal soon after a hold doubles the next one, up to
 * `maxMs`. Refusals arriving during a hold are of frames sent before it, and change nothing.
 */
import type { Timers } from '@e2e-col/sync'

/** The sidecar's remote code for a frame over the connection's rate. */
export const RATE_LIMITED_CODE = 'SIDECAR_RATE_LIMITED'
/** Default hold after a rate refusal, ms: long enough for the default bucket to refill 200 frames. */
export const DEFAULT_RATE_LIMIT_HOLD_MS = { min: 1000, max: 16_000 } as const

export interface SendHoldOptions {
  readonly timers: Timers
  readonly minMs: number
  readonly maxMs: number
  /** Called when a hold ends: send again what was refused or held back. */
  readonly resume: () => void
}

export class SendHold {
  readonly #options: SendHoldOptions
  #timer: unknown = undefined
  #holdMs: number
  #lastResumeAt = Number.NEGATIVE_INFINITY

  constructor(options: SendHoldOptions) {
    this.#options = options
    this.#holdMs = options.minMs
  }

  /** True while sends are held back. */
  get held(): boolean {
    return this.#timer !== undefined
  }

  /** The sidecar refused a frame as too many: hold, then resume. */
  refused(): void {
    if (this.held) return
    const { timers, minMs, maxMs } = this.#options
    const now = timers.now()
    this.#holdMs = now - this.#lastResumeAt < 2 * this.#holdMs ? Math.min(2 * this.#holdMs, maxMs) : minMs
    this.#timer = timers.setTimeout(() => {
      this.#timer = undefined
      this.#lastResumeAt = timers.now()
      this.#options.resume()
    }, this.#holdMs)
  }

  /** Ends a hold without resuming: a new connection replays the outbox itself. */
  reset(): void {
    if (this.#timer === undefined) return
    this.#options.timers.clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
