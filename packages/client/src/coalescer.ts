/**
 * Coalesces local Yjs updates into at most one outgoing update per flush window (a burst that has
 * stopped may leave early, see below).
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
 *
 * Beyond `mergeLimit` the per-transaction updates are useless (the flush diffs the document), so the
 * caller can stop asking Yjs to encode them: {@link Coalescer.wantsUpdates} turns false and further
 * changes are counted with {@link Coalescer.pushUnencoded}. Yjs encodes an update for every
 * transaction while anyone listens to `update` (+46 % on the automerge-paper replay); during a burst
 * (a paste, an import, a replay) only the first `mergeLimit` transactions of each window pay for it.
 * The diff carries the document's whole delete set, so deletions made by unencoded transactions are
 * never lost; what is not yet flushed lives in the document either way, so durability is unchanged.
 *
 * A burst that stops mid-window does not wait for the window's end: once a window holds at least
 * `burstMinChanges` changes (far more than a person types in one window) and no change came for
 * `burstIdleMs`, it is flushed at once. Typing at human speed never reaches that count, so it is
 * coalesced exactly as before; a paste, an import or a replay reaches peers up to a window sooner.
 * Two flushes are still at least `burstIdleMs` apart (at most 50 a second with the defaults).
 *
 * While no flushed update waits for the sidecar's acknowledgement (`inFlight`, when given), there is
 * nothing to coalesce for: an edit leaves as soon as it is `burstIdleMs` after the last flush, and
 * {@link Coalescer.released} (the last acknowledgement came) sends what the window was holding. So
 * at typing speed every keystroke reaches the sidecar at once, and the sidecar, which sends to the
 * group at its own pace, coalesces while it waits for a send slot; edits are held in the page only
 * while an update is on its way or the sidecar is out of reach (decision 0042).
 *
 * A page sends only what its own person wrote (decision 0023): the diff is taken against a state
 * vector that holds every other client id at its current clock, so remote structs applied since
 * the last flush never leave as this page's `update` (receivers would drop the whole update as
 * forged, and with it the local keystrokes). The ids written under since the last flush are kept
 * ({@link Coalescer.push}'s `writers`): Yjs (or the account-derived id) may switch `doc.clientID`
 * between two edits of one window.
 */
import type { Timers } from '@e2e-col/sync'
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

/** Options of {@link Coalescer}. */
export interface CoalescerOptions {
  /** Minimum time between two flushes, ms (a stopped burst: `burstIdleMs`, see the module comment). */
  readonly flushWindowMs: number
  readonly mergeLimit: number
  readonly timers: Timers
  /** A window with at least this many changes is a burst (default {@link DEFAULT_BURST_MIN_CHANGES}). */
  readonly burstMinChanges?: number
  /** A burst with no change for this long is flushed before its window ends, ms (default {@link DEFAULT_BURST_IDLE_MS}). */
  readonly burstIdleMs?: number
  /** Whether a flushed update still waits for its acknowledgement (absent: the fixed window alone). */
  readonly inFlight?: () => boolean
}

/** Changes in one window from which it counts as a burst: 64 in 250 ms is 256 keystrokes a second. */
export const DEFAULT_BURST_MIN_CHANGES = 64
/** How long a burst must be quiet to be flushed early, ms. */
export const DEFAULT_BURST_IDLE_MS = 20

/**
 * What `writers` wrote in `doc` beyond the clocks in `since` (from the start when absent there),
 * with the document's whole delete set: a diff against a state vector that holds every other client
 * id at its current clock, so no one else's structs are in it.
 */
export function encodeOwnUpdate(
  doc: Y.Doc,
  writers: Iterable<number>,
  since: ReadonlyMap<number, number> = new Map(),
): Uint8Array {
  // Every other id past any clock: Yjs adds structs still waiting for missing ones (pendingStructs,
  // a V2 update) beyond the target to the encoding too, and those are someone else's.
  const base = new Map<number, number>()
  for (const id of stateVector(doc).keys()) base.set(id, Number.MAX_SAFE_INTEGER)
  const pending = doc.store.pendingStructs
  if (pending !== null)
    for (const id of Y.parseUpdateMetaV2(pending.update).from.keys()) base.set(id, Number.MAX_SAFE_INTEGER)
  for (const id of writers) base.set(id, since.get(id) ?? 0)
  return Y.encodeStateAsUpdate(doc, Y.encodeStateVector(base))
}

function stateVector(doc: Y.Doc): Map<number, number> {
  return Y.decodeStateVector(Y.encodeStateVector(doc))
}

/** Buffers local updates of `doc` and hands one payload per window to `onFlush`. */
export class Coalescer {
  readonly #doc: Y.Doc
  readonly #options: CoalescerOptions
  readonly #onFlush: (payload: Uint8Array, encoding: FlushEncoding) => void
  #pending: Uint8Array[] = []
  /** Local changes since the last flush, encoded (in #pending) or not. */
  #count = 0
  /** #pending holds the update of every change since the last flush. */
  #complete = true
  #svAtLastFlush: Map<number, number>
  /** Client ids local changes were written under since the last flush. */
  readonly #writers = new Set<number>()
  #lastFlushAt = Number.NEGATIVE_INFINITY
  #timer: unknown = undefined
  #idleTimer: unknown = undefined
  /** #count when the idle timer was armed or last fired. */
  #countAtIdleCheck = 0

  constructor(doc: Y.Doc, options: CoalescerOptions, onFlush: (payload: Uint8Array, encoding: FlushEncoding) => void) {
    this.#doc = doc
    this.#options = options
    this.#onFlush = onFlush
    this.#svAtLastFlush = stateVector(doc)
  }

  /** Local updates waiting for the end of the window. */
  get pendingCount(): number {
    return this.#count
  }

  /**
   * Whether the next change's encoded update would be used. False once this window holds
   * `mergeLimit` changes: the flush will diff the document, so the caller may report further
   * changes with {@link pushUnencoded} (and stop having Yjs encode them) until the next flush.
   */
  get wantsUpdates(): boolean {
    return this.#count < this.#options.mergeLimit
  }

  /**
   * Marks the document's current state as already accounted for (e.g. after loading a checkpoint),
   * so a later diff does not resend it. Only valid while nothing is pending.
   */
  rebase(): void {
    if (this.#count === 0) this.#svAtLastFlush = stateVector(this.#doc)
  }

  /**
   * Adds one local update (already applied to the document).
   * @param writers - the client ids whose structs it added (default: the document's current id)
   */
  push(update: Uint8Array, writers?: Iterable<number>): void {
    this.#wrote(writers)
    if (this.#complete) this.#pending.push(update)
    this.#count += 1
    this.#schedule()
  }

  /**
   * Adds one local change (already applied to the document) whose update was not encoded: the
   * flush will send a state-vector diff, which contains it.
   * @param writers - the client ids whose structs it added (default: the document's current id)
   */
  pushUnencoded(writers?: Iterable<number>): void {
    this.#wrote(writers)
    if (this.#complete) {
      this.#complete = false
      this.#pending = [] // no longer needed: the flush diffs
    }
    this.#count += 1
    this.#schedule()
  }

  #wrote(writers: Iterable<number> | undefined): void {
    for (const id of writers ?? [this.#doc.clientID]) this.#writers.add(id)
  }

  #schedule(): void {
    if (this.#timer !== undefined) {
      if (this.#idleTimer === undefined && this.#count >= (this.#options.burstMinChanges ?? DEFAULT_BURST_MIN_CHANGES))
        this.#armIdle()
      return
    }
    const wait = this.#waitMs()
    if (wait <= 0) {
      this.flush()
      return
    }
    this.#timer = this.#options.timers.setTimeout(() => {
      this.#timer = undefined
      this.flush()
    }, wait)
  }

  /** How long pending edits wait from now: the window's rest, or the shortest gap when nothing is in flight. */
  #waitMs(): number {
    const { timers, flushWindowMs, inFlight } = this.#options
    const since = timers.now() - this.#lastFlushAt
    // Never longer than the gap itself: a wall clock set back must not hold an edit back for as long.
    const rest = (gap: number): number => Math.min(gap, gap - since)
    if (inFlight === undefined || inFlight()) return rest(flushWindowMs)
    return Math.min(rest(flushWindowMs), rest(this.#options.burstIdleMs ?? DEFAULT_BURST_IDLE_MS))
  }

  /** Nothing waits for an acknowledgement any more: what the window holds leaves now (or after the shortest gap). */
  released(): void {
    if (this.#count === 0 || this.#timer === undefined) return
    this.#options.timers.clearTimeout(this.#timer)
    this.#timer = undefined
    this.#schedule()
  }

  /** Checks every `burstIdleMs` whether the burst went on; flushes once it has not. */
  #armIdle(): void {
    this.#countAtIdleCheck = this.#count
    this.#idleTimer = this.#options.timers.setTimeout(() => {
      this.#idleTimer = undefined
      if (this.#count === this.#countAtIdleCheck) this.flush()
      else this.#armIdle()
    }, this.#options.burstIdleMs ?? DEFAULT_BURST_IDLE_MS)
  }

  /** Flushes whatever is pending now (page hide, close). */
  flush(): void {
    this.#clearTimers()
    if (this.#count === 0) return
    const { payload, encoding } = this.#encode()
    this.#pending = []
    this.#count = 0
    this.#complete = true
    this.#writers.clear()
    this.#svAtLastFlush = stateVector(this.#doc)
    this.#lastFlushAt = this.#options.timers.now()
    this.#onFlush(payload, encoding)
  }

  #encode(): { payload: Uint8Array; encoding: FlushEncoding } {
    const pending = this.#pending
    if (this.#complete && pending.length === 1 && pending[0] !== undefined)
      return { payload: pending[0], encoding: 'single' }
    const diff = encodeOwnUpdate(this.#doc, this.#writers, this.#svAtLastFlush)
    if (!this.#complete || chooseEncoding(pending.length, this.#options.mergeLimit) === 'diff')
      return { payload: diff, encoding: 'diff' }
    const merged = Y.mergeUpdates(pending)
    return merged.byteLength <= diff.byteLength
      ? { payload: merged, encoding: 'merge' }
      : { payload: diff, encoding: 'diff' }
  }

  /** Drops the timer (the pending updates stay in the document; the caller flushes first if needed). */
  dispose(): void {
    this.#clearTimers()
  }

  #clearTimers(): void {
    const { timers } = this.#options
    if (this.#timer !== undefined) timers.clearTimeout(this.#timer)
    if (this.#idleTimer !== undefined) timers.clearTimeout(this.#idleTimer)
    this.#timer = undefined
    this.#idleTimer = undefined
  }
}
