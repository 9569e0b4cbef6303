/**
 * Keystroke-to-visible latency: when did an edit made at A show at B?
 *
 * Operations are counted as characters inserted plus characters deleted. At A, after keystroke i,
 * that count is A's Yjs clock plus the characters A deleted so far. At B, after every transaction,
 * it is A's clock in B's store plus the characters B's transactions deleted (each deletion is counted
 * once, whether it arrived as a delete set or as an already-deleted item). Every keystroke whose
 * count B has reached is visible.
 */
import * as Y from 'yjs'

export class VisibilityTracker {
  readonly latencies: number[] = []
  readonly #doc: Y.Doc
  readonly #author: number
  readonly #pending: { ops: number; at: number }[] = []
  #head = 0
  #deleted = 0
  readonly #listener: (tr: Y.Transaction) => void

  /** `doc` is B's document; `author` is A's client id. */
  constructor(doc: Y.Doc, author: number) {
    this.#doc = doc
    this.#author = author
    this.#listener = (tr) => {
      for (const items of tr.deleteSet.clients.values()) for (const item of items) this.#deleted += item.len
      this.#settle(performance.now())
    }
    doc.on('afterTransaction', this.#listener)
  }

  /** Records keystroke made at `at` (performance.now()) that brought A to `ops` operations. */
  expect(ops: number, at: number): void {
    this.#pending.push({ ops, at })
  }

  get outstanding(): number {
    return this.#pending.length - this.#head
  }

  #settle(now: number): void {
    const seen = Y.getState(this.#doc.store, this.#author) + this.#deleted
    while (this.#head < this.#pending.length) {
      const next = this.#pending[this.#head]
      if (next === undefined || next.ops > seen) break
      this.latencies.push(now - next.at)
      this.#head += 1
    }
  }

  dispose(): void {
    this.#doc.off('afterTransaction', this.#listener)
  }
}
