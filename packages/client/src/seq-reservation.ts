/**
 * Per-sender sequence numbers that never repeat across reloads, without a storage write per message.
 *
 * Numbers are handed out from a block whose end (`mark`) is persisted before the block is used up;
 * after a reload counting resumes at the stored mark. A reload may skip the rest of a block, which is
 * fine: `seq` orders one sender's messages, gaps in it mean nothing by themselves.
 */
export class SeqReservation {
  readonly #block: number
  readonly #persist: (mark: number) => void
  #next: number
  #mark: number

  /**
   * @param start - first number to hand out (the stored mark, or above every stored seq)
   * @param persist - stores a new mark; called when a block is opened
   */
  constructor(start: number, block: number, persist: (mark: number) => void) {
    this.#block = block
    this.#persist = persist
    this.#next = start
    this.#mark = start + block
  }

  /** The current block's end, to store along with anything that uses these numbers. */
  get mark(): number {
    return this.#mark
  }

  /** The next number. */
  take(): number {
    const seq = this.#next
    this.#next += 1
    if (this.#next >= this.#mark) {
      this.#mark = this.#next + this.#block
      this.#persist(this.#mark)
    }
    return seq
  }
}
