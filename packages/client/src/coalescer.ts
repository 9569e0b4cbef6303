/**
 * Coalesces local Yjs updates into at most one outgoing update per flush window.
 *
 * The first edit after a quiet period (no flush within the window) is flushed at once, so a single
 * keystroke travels without delay; edits that follow within the window wait for its end and leave
 * as one update (a fixed, latency-capped window, not a resetting debounce).
 *
 * Encoding choice (see {@link chooseEncoding}), measured by packages/client/bench/flush-encoding.ts on
 * the automerge-paper trace: `Y.mergeUpdates` grows much faster than linearly with the number of
 * updates (1,024 keystrokes ≈ 12 ms, 4,096 ≈ 95 ms) and, for typed text, is often larger than a diff,
 * because single-keystroke items are not re-merged. `Y.encodeStateAsUpdate(doc, svAtLastFlush)` stays
 * under a millisecond on that ~100k-character document but always carries the whole delete set
 * (1–8 KB there). So: up to `mergeLimit` (1,024: merging stays around 15 ms or less) pending
 * updates, compute both and send the smaller; beyond it, only the diff (merging 4,096 took ~95 ms).
 */
import * as Y from 'yjs'

/** How a flush encoded its pending updates. */
export type FlushEncoding = 'single' | 'merge' | 'diff'

/** Default pending-update count above which a flush diffs the document instead of merging. */
export const DEFAULT_MERGE_LIMIT = 1024

/**
 * Which encodings to try for `pendingCount` updates: `merge` means "merge, and diff too, keep the
 * smaller"; `diff` means merging would cost too much time.
 * @param pendingCount - local updates since the last flush
 * @param mergeLimit - largest count still merged with `Y.mergeUpdates`
 */
export function chooseEncoding(pendingCount: number, mergeLimit: number = DEFAULT_MERGE_LIMIT): 'merge' | 'diff' {
  return pendingCount <= mergeLimit ? 'merge' : 'diff'
}

/** Timer functions, injectable for tests. */
export interface Timers {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** The platform's timers. */
export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

/** Options of {@link Coalescer}. */
export interface CoalescerOptions {
  /** Minimum time between two flushes, ms. */
  readonly flushWindowMs: number
  readonly mergeLimit: number
  readonly timers: Timers
}

/** Buffers local updates of `doc` and hands one payload per window to `onFlush`. */
export class Coalescer {
  readonly #doc: Y.Doc
  readonly #options: CoalescerOptions
  readonly #onFlush: (payload: Uint8Array, encoding: FlushEncoding) => void
  #pending: Uint8Array[] = []
  #svAtLastFlush: Uint8Array
  #lastFlushAt = Number.NEGATIVE_INFINITY
  #timer: unknown = undefined

  constructor(doc: Y.Doc, options: CoalescerOptions, onFlush: (payload: Uint8Array, encoding: FlushEncoding) => void) {
    this.#doc = doc
    this.#options = options
    this.#onFlush = onFlush
    this.#svAtLastFlush = Y.encodeStateVector(doc)
  }

  /** Local updates waiting for the end of the window. */
  get pendingCount(): number {
    return this.#pending.length
  }

  /**
   * Marks the document's current state as already accounted for (e.g. after loading a checkpoint),
   * so a later diff does not resend it. Only valid while nothing is pending.
   */
  rebase(): void {
    if (this.#pending.length === 0) this.#svAtLastFlush = Y.encodeStateVector(this.#doc)
  }

  /** Adds one local update (already applied to the document). */
  push(update: Uint8Array): void {
    this.#pending.push(update)
    if (this.#timer !== undefined) return
    const { timers, flushWindowMs } = this.#options
    const wait = this.#lastFlushAt + flushWindowMs - timers.now()
    if (wait <= 0) {
      this.flush()
      return
    }
    this.#timer = timers.setTimeout(() => {
      this.#timer = undefined
      this.flush()
    }, wait)
  }

  /** Flushes whatever is pending now (page hide, close). */
  flush(): void {
    if (this.#timer !== undefined) {
      this.#options.timers.clearTimeout(this.#timer)
      this.#timer = undefined
    }
    if (this.#pending.length === 0) return
    const { payload, encoding } = this.#encode()
    this.#pending = []
    this.#svAtLastFlush = Y.encodeStateVector(this.#doc)
    this.#lastFlushAt = this.#options.timers.now()
    this.#onFlush(payload, encoding)
  }

  #encode(): { payload: Uint8Array; encoding: FlushEncoding } {
    const pending = this.#pending
    if (pending.length === 1 && pending[0] !== undefined) return { payload: pending[0], encoding: 'single' }
    const diff = Y.encodeStateAsUpdate(this.#doc, this.#svAtLastFlush)
    if (chooseEncoding(pending.length, this.#options.mergeLimit) === 'diff') return { payload: diff, encoding: 'diff' }
    const merged = Y.mergeUpdates(pending)
    return merged.byteLength <= diff.byteLength ? { payload: merged, encoding: 'merge' } : { payload: diff, encoding: 'diff' }
  }

  /** Drops the timer (the pending updates stay in the document; the caller flushes first if needed). */
  dispose(): void {
    if (this.#timer !== undefined) this.#options.timers.clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
