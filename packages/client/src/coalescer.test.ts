import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { manualTimers } from '../test/manual-timers.ts'
import { chooseEncoding, Coalescer, type FlushEncoding } from './coalescer.ts'

function setup(mergeLimit = 256) {
  const doc = new Y.Doc()
  const timers = manualTimers()
  const flushes: { payload: Uint8Array; encoding: FlushEncoding; at: number }[] = []
  const coalescer = new Coalescer(doc, { flushWindowMs: 100, mergeLimit, timers }, (payload, encoding) =>
    flushes.push({ payload, encoding, at: timers.now() }),
  )
  doc.on('update', (update: Uint8Array) => coalescer.push(update))
  return { doc, text: doc.getText('t'), timers, flushes, coalescer }
}

function replay(payloads: Uint8Array[]): string {
  const doc = new Y.Doc()
  for (const p of payloads) Y.applyUpdate(doc, p)
  return doc.getText('t').toString()
}

describe('Coalescer', () => {
  test('sends the first edit after a quiet period at once', () => {
    const { text, flushes } = setup()
    text.insert(0, 'a')
    expect(flushes).toHaveLength(1)
    expect(flushes[0]?.at).toBe(0)
    expect(flushes[0]?.encoding).toBe('single')
  })

  test('coalesces edits inside the window into one update sent at the window end', () => {
    const { text, timers, flushes } = setup()
    text.insert(0, 'a')
    timers.advance(10)
    text.insert(1, 'b')
    timers.advance(10)
    text.insert(2, 'c')
    expect(flushes).toHaveLength(1)
    timers.advance(79)
    expect(flushes).toHaveLength(1)
    timers.advance(1)
    expect(flushes).toHaveLength(2)
    expect(flushes[1]?.at).toBe(100)
    expect(replay(flushes.map((f) => f.payload))).toBe('abc')
  })

  test('is a fixed window, not a resetting debounce: steady typing still flushes every window', () => {
    const { text, timers, flushes } = setup()
    for (let i = 0; i < 50; i++) {
      text.insert(i, 'x')
      timers.advance(20)
    }
    // 1000 ms of typing with a 100 ms window: about 11 flushes, never one giant delayed one.
    expect(flushes.length).toBeGreaterThanOrEqual(10)
    expect(flushes.length).toBeLessThanOrEqual(11)
    expect(replay(flushes.map((f) => f.payload))).toBe('x'.repeat(50))
  })

  test('above the merge limit it diffs against the state vector of the last flush', () => {
    const { text, timers, flushes } = setup(3)
    text.insert(0, 'start ')
    for (let i = 0; i < 5; i++) text.insert(6 + i, String(i))
    text.delete(0, 1)
    timers.advance(100)
    expect(flushes.map((f) => f.encoding)).toEqual(['single', 'diff'])
    expect(replay(flushes.map((f) => f.payload))).toBe('tart 01234')
  })

  test('within the merge limit it sends whichever of merge and diff is smaller', () => {
    const { doc, text, timers, flushes } = setup(1000)
    // Many keystrokes: merged single-character items are larger than the diff's compact string.
    text.insert(0, '#')
    for (let i = 0; i < 300; i++) text.insert(1 + i, 'k')
    timers.advance(100)
    const typed = flushes[1]
    expect(typed?.encoding).toBe('diff')
    // A lone deletion in a document with a big delete set: the merged update is far smaller.
    text.delete(0, 100)
    timers.advance(100)
    text.delete(0, 1)
    text.delete(5, 1)
    timers.advance(100)
    const deleted = flushes.at(-1)
    expect(deleted?.encoding).toBe('merge')
    const sizes = { merged: deleted?.payload.byteLength ?? 0, full: Y.encodeStateAsUpdate(doc).byteLength }
    expect(sizes.merged).toBeLessThan(sizes.full)
    expect(replay(flushes.map((f) => f.payload))).toBe(text.toString())
  })

  test('flush() sends pending edits immediately (page hide)', () => {
    const { text, flushes, coalescer, timers } = setup()
    text.insert(0, 'a')
    text.insert(1, 'b')
    expect(coalescer.pendingCount).toBe(1)
    coalescer.flush()
    expect(flushes).toHaveLength(2)
    expect(timers.pending()).toBe(0)
    coalescer.flush()
    expect(flushes).toHaveLength(2)
  })
})

describe('chooseEncoding', () => {
  test('merges up to the limit and diffs beyond it', () => {
    expect(chooseEncoding(1, 256)).toBe('merge')
    expect(chooseEncoding(256, 256)).toBe('merge')
    expect(chooseEncoding(257, 256)).toBe('diff')
    expect(chooseEncoding(10_000)).toBe('diff')
  })
})
