/**
 * Where the reassembler keeps the chunk data of one partial message, copied once out of the caller's
 * buffers. Two layouts:
 *
 * - **In place**: chunks as this package cuts them (every chunk but the last of one length, the last
 *   no longer) are copied straight to their final offset in a frame allocated up front, so completing
 *   the message costs no further copy. The reassembler grants that frame only while the frames it has
 *   granted add up to at most `maxPartialBytes`.
 * - **Slabs**: otherwise (no frame granted, or chunks of irregular lengths, which the format allows)
 *   chunks are copied into slabs of up to {@link SLAB_BYTES} and concatenated on completion. A slab
 *   never exceeds what the message still lacks, so a slab's unused tail is under one chunk.
 *
 * Either way the pieces concatenate, in index order, to the same bytes.
 */

/** Largest slab; one allocation per chunk would dominate (a 1 MiB message is ~740 chunks). */
export const SLAB_BYTES = 64 * 1024
const EMPTY = new Uint8Array(0)

/** Read access to the pieces held, by chunk index. */
export interface PieceLookup {
  /** That chunk's data (a view into the frame or a slab), or `undefined` if it has not arrived. */
  get(index: number): Uint8Array | undefined
  /** Pieces held. */
  readonly size: number
  /** The data of every piece held, in no particular order. */
  values(): IterableIterator<Uint8Array>
}

/** The chunk data of one partial message. */
export class PieceStore {
  readonly count: number
  readonly totalLength: number
  /** index → that chunk's data; Maps below because `count` is untrusted. */
  readonly pieces: PieceLookup
  /** Data bytes held. */
  bytes = 0
  /** The frame granted up front, kept while any piece may point into it. */
  readonly frame: Uint8Array | undefined
  /**
   * Pieces copied in place, index → length: numbers, not views, because ~740 views per MiB kept
   * alive until completion made the garbage collector's work a measurable share of reassembly.
   * Their offset follows from the index (see {@link PieceStore.offsetInFrame}).
   */
  private readonly inFrame = new Map<number, number>()
  /** Pieces copied into slabs, index → view. */
  private readonly inSlabs = new Map<number, Uint8Array>()
  // In-place layout: true until a chunk's length breaks the regular pattern.
  private inPlace: boolean
  private stride = 0
  private slab = EMPTY
  private slabUsed = 0

  constructor(count: number, totalLength: number, frame: Uint8Array | undefined) {
    this.count = count
    this.totalLength = totalLength
    this.frame = frame
    this.inPlace = frame !== undefined && frame.length === totalLength
    this.pieces = new Lookup(this)
  }

  /** Pieces held. */
  get held(): number {
    return this.inFrame.size + this.inSlabs.size
  }

  /** The indexes of the pieces held, in no particular order. */
  *heldIndexes(): IterableIterator<number> {
    yield* this.inFrame.keys()
    yield* this.inSlabs.keys()
  }

  /** Copies chunk `index`'s data in; the caller has checked it is new and fits `totalLength`. */
  add(index: number, data: Uint8Array): void {
    const at = this.inPlace ? this.placeAt(index, data.length) : -1
    if (at >= 0 && this.frame !== undefined) {
      this.frame.set(data, at)
      this.inFrame.set(index, data.length)
    } else {
      if (this.slab.length - this.slabUsed < data.length) {
        this.slab = new Uint8Array(Math.max(data.length, Math.min(SLAB_BYTES, this.totalLength - this.bytes)))
        this.slabUsed = 0
      }
      const copy = this.slab.subarray(this.slabUsed, this.slabUsed + data.length)
      this.slabUsed += data.length
      copy.set(data)
      this.inSlabs.set(index, copy)
    }
    this.bytes += data.length
  }

  /** The data of piece `index` (a view into the frame or a slab), if held. */
  piece(index: number): Uint8Array | undefined {
    const length = this.inFrame.get(index)
    if (length === undefined || this.frame === undefined) return this.inSlabs.get(index)
    const at = this.offsetInFrame(index, length)
    return this.frame.subarray(at, at + length)
  }

  /**
   * Where an in-place piece sits: the last chunk ends the frame, any other starts at `index · stride`
   * (only placed once the stride is fixed, and the stride never changes after that).
   */
  private offsetInFrame(index: number, length: number): number {
    return index === this.count - 1 ? this.totalLength - length : index * this.stride
  }

  /**
   * The final offset of a chunk of `length` bytes at `index` in the in-place layout, or -1 (and the
   * layout switches to slabs for good) when the lengths seen so far cannot be this package's cut.
   */
  private placeAt(index: number, length: number): number {
    const last = this.count - 1
    if (index < last) {
      if (this.stride === 0) {
        // The first non-last chunk fixes the stride; the last chunk must then hold 1 … stride bytes.
        const lastLength = this.totalLength - last * length
        const seenLast = this.inFrame.get(last) ?? this.inSlabs.get(last)?.length
        if (lastLength >= 1 && lastLength <= length && (seenLast === undefined || seenLast === lastLength)) {
          this.stride = length
        }
      }
      if (this.stride === length) return index * length
    } else if (this.stride === 0 || length === this.totalLength - last * this.stride) {
      return this.totalLength - length
    }
    this.inPlace = false
    return -1
  }

  /** The whole frame: the in-place one when every piece sits there, else a fresh concatenation. */
  assemble(): Uint8Array {
    if (this.inPlace && this.frame !== undefined && this.bytes === this.totalLength) return this.frame
    const frame = new Uint8Array(this.totalLength)
    let offset = 0
    for (let i = 0; i < this.count; i++) {
      const piece = this.piece(i) ?? EMPTY
      frame.set(piece, offset)
      offset += piece.length
    }
    return frame
  }
}

/** {@link PieceStore.pieces}: Map-like read access, views made only on request. */
class Lookup implements PieceLookup {
  private readonly store: PieceStore

  constructor(store: PieceStore) {
    this.store = store
  }

  get(index: number): Uint8Array | undefined {
    return this.store.piece(index)
  }

  get size(): number {
    return this.store.held
  }

  *values(): IterableIterator<Uint8Array> {
    for (const index of this.store.heldIndexes()) yield this.store.piece(index) ?? EMPTY
  }
}
