/**
 * Optional presence (y-protocols awareness) over the sidecar, rate-limited.
 *
 * Off by default: over Signal every awareness message is a real message against a rate limit, and
 * the stock 15 s renew / 30 s timeout is far too chatty for that hop. When enabled, local changes are
 * sent at most once per `rateMs` (the latest state wins), and peers' states are applied on arrival.
 */
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness'
import type * as Y from 'yjs'
import type { Timers } from '@e2e-col/sync'

/** Options of {@link AwarenessChannel}. */
export interface AwarenessChannelOptions {
  readonly rateMs: number
  readonly timers: Timers
  readonly send: (payload: Uint8Array) => void
  readonly remoteOrigin: unknown
  /** Use this Awareness (of the same doc) instead of a new one. */
  readonly instance?: Awareness | undefined
}

/** Owns an {@link Awareness} for one document and throttles what it sends. */
export class AwarenessChannel {
  readonly awareness: Awareness
  readonly #options: AwarenessChannelOptions
  #timer: unknown = undefined
  #lastSentAt = Number.NEGATIVE_INFINITY
  readonly #onUpdate: (change: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => void

  constructor(doc: Y.Doc, options: AwarenessChannelOptions) {
    this.awareness = options.instance ?? new Awareness(doc)
    this.#options = options
    this.#onUpdate = (_change, origin) => {
      if (origin !== options.remoteOrigin) this.#schedule()
    }
    this.awareness.on('update', this.#onUpdate)
  }

  /** Sends the local state now (after a (re)connect). */
  announce(): void {
    this.#sendNow()
  }

  /**
   * Applies a peer's awareness update.
   * @throws Error from y-protocols on a malformed payload
   */
  apply(payload: Uint8Array): void {
    applyAwarenessUpdate(this.awareness, payload, this.#options.remoteOrigin)
  }

  /** Tells peers we left, then stops. */
  dispose(): void {
    this.#options.timers.clearTimeout(this.#timer)
    this.awareness.off('update', this.#onUpdate)
    removeAwarenessStates(this.awareness, [this.awareness.clientID], 'dispose')
    this.#sendNow()
    // An Awareness handed in belongs to the caller (as with y-websocket's provider).
    if (this.#options.instance === undefined) this.awareness.destroy()
  }

  #schedule(): void {
    if (this.#timer !== undefined) return
    const wait = this.#lastSentAt + this.#options.rateMs - this.#options.timers.now()
    if (wait <= 0) {
      this.#sendNow()
      return
    }
    this.#timer = this.#options.timers.setTimeout(() => {
      this.#timer = undefined
      this.#sendNow()
    }, wait)
  }

  #sendNow(): void {
    this.#lastSentAt = this.#options.timers.now()
    this.#options.send(encodeAwarenessUpdate(this.awareness, [this.awareness.clientID]))
  }
}
