import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { expectSameBytes, patternBytes } from '../test/fixtures.ts'
import { PieceStore, SLAB_BYTES } from './piece-store.ts'

/** Cuts `frame` at the given lengths (the last piece takes the rest) into [index, data] pairs. */
function cut(frame: Uint8Array, lengths: number[]): Array<[number, Uint8Array]> {
  const out: Array<[number, Uint8Array]> = []
  let offset = 0
  for (const length of lengths) {
    out.push([out.length, frame.subarray(offset, offset + length)])
    offset += length
  }
  return out
}

/** This package's cut: `stride` bytes per chunk, the last one shorter or equal. */
function regularCut(frame: Uint8Array, stride: number): Array<[number, Uint8Array]> {
  const count = Math.ceil(frame.length / stride)
  return cut(
    frame,
    Array.from({ length: count }, (_, i) => Math.min(stride, frame.length - i * stride)),
  )
}

function fill(store: PieceStore, pieces: Array<[number, Uint8Array]>, order: number[]): void {
  for (const i of order) {
    const [index, data] = pieces[i] as [number, Uint8Array]
    // The store must copy: the caller may reuse its buffer right after.
    const callerBuffer = data.slice()
    store.add(index, callerBuffer)
    callerBuffer.fill(0xee)
  }
}

const shuffled = (n: number, seed: number): number[] => {
  const order = Array.from({ length: n }, (_, i) => i)
  let x = seed >>> 0 || 1
  for (let i = n - 1; i > 0; i--) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    const j = x % (i + 1)
    ;[order[i], order[j]] = [order[j] as number, order[i] as number]
  }
  return order
}

const hex = (piece: Uint8Array): string => Buffer.from(piece).toString('hex')

describe('PieceStore', () => {
  it('writes this package’s cut in place, in any order, and hands back the granted frame itself', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 3000 }),
        fc.integer({ min: 1, max: 700 }),
        fc.nat(),
        (length, strideSeed, seed) => {
          const frame = patternBytes(length, seed)
          const stride = 1 + (strideSeed % (length - 1))
          const pieces = regularCut(frame, stride)
          if (pieces.length < 2) return
          const granted = new Uint8Array(length)
          const store = new PieceStore(pieces.length, length, granted)
          fill(store, pieces, shuffled(pieces.length, seed))
          const out = store.assemble()
          expect(out).toBe(granted)
          expectSameBytes(out, frame)
          expect(store.bytes).toBe(length)
        },
      ),
    )
  })

  it('assembles chunks of irregular lengths, which the format allows, whether or not a frame was granted', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 2, maxLength: 30 }),
        fc.nat(),
        fc.boolean(),
        (lengths, seed, grant) => {
          const total = lengths.reduce((a, b) => a + b, 0)
          const frame = patternBytes(total, seed)
          const pieces = cut(frame, lengths)
          const store = new PieceStore(pieces.length, total, grant ? new Uint8Array(total) : undefined)
          fill(store, pieces, shuffled(pieces.length, seed))
          expectSameBytes(store.assemble(), frame)
          for (const [index, data] of pieces) expectSameBytes(store.pieces.get(index) ?? new Uint8Array(0), data)
        },
      ),
    )
  })

  it('never lets one chunk overwrite another, even when lengths disagree with the announced total', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 2, maxLength: 8 }),
        fc.nat(8),
        fc.nat(),
        (lengths, slack, seed) => {
          // Hostile metadata: the total may exceed what the chunks add up to (the reassembler only
          // guarantees that the bytes held never exceed it).
          const total = lengths.reduce((a, b) => a + b, 0) + slack
          const pieces = lengths.map((length, index): [number, Uint8Array] => [
            index,
            patternBytes(length, seed + index),
          ])
          const store = new PieceStore(pieces.length, total, new Uint8Array(total))
          fill(store, pieces, shuffled(pieces.length, seed))
          for (const [index, data] of pieces) expectSameBytes(store.pieces.get(index) ?? new Uint8Array(0), data)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('without a granted frame, copies into slabs no larger than SLAB_BYTES and no larger than the message still needs', () => {
    const frame = patternBytes(3 * SLAB_BYTES + 100)
    const pieces = regularCut(frame, 1400)
    const store = new PieceStore(pieces.length, frame.length, undefined)
    fill(
      store,
      pieces,
      pieces.map((_, i) => i),
    )
    const buffers = new Set([...store.pieces.values()].map((p) => p.buffer))
    for (const buffer of buffers) expect(buffer.byteLength).toBeLessThanOrEqual(SLAB_BYTES)
    const allocated = [...buffers].reduce((sum, b) => sum + b.byteLength, 0)
    // Unused slab tails stay under one chunk per slab.
    expect(allocated - frame.length).toBeLessThan(buffers.size * 1400)
    expect(buffers.size).toBeLessThan(pieces.length / 10)
    expectSameBytes(store.assemble(), frame)
  })

  it('lists the data of every piece held, each once, whether held in place or in slabs', () => {
    const frame = patternBytes(1000, 9)
    // A regular cut fills the granted frame in place; an irregular one without a frame goes to slabs.
    for (const [pieces, granted] of [
      [regularCut(frame, 100), new Uint8Array(frame.length)],
      [cut(frame, [10, 300, 1, 250, 439]), undefined],
    ] as const) {
      const store = new PieceStore(pieces.length, frame.length, granted)
      const held = pieces.filter(([index]) => index !== 1)
      fill(
        store,
        held,
        held.map((_, i) => i),
      )
      expect([...store.pieces.values()].map(hex).sort()).toEqual(held.map(([, data]) => hex(data)).sort())
    }
  })
})
