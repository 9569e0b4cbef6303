import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { chooseEncoding, Coalescer, type CoalescerOptions, type FlushEncoding } from './coalescer.ts'

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

/** A coalescer whose flushes stay unacknowledged until the test says so (`state.inFlight`). */
function acked() {
  const doc = new Y.Doc()
  const timers = manualTimers()
  const state = { inFlight: false }
  const flushes: number[] = []
  const coalescer = new Coalescer(
    doc,
    { flushWindowMs: 250, mergeLimit: 256, timers, burstIdleMs: 20, inFlight: () => state.inFlight },
    () => {
      flushes.push(timers.now())
      state.inFlight = true
    },
  )
  doc.on('update', (update: Uint8Array) => coalescer.push(update))
  return { text: doc.getText('t'), timers, state, flushes, coalescer, doc }
}

describe('Coalescer', () => {
  test('a wall clock set back does not hold an edit back longer than one window', () => {
    const { text, timers, flushes } = setup()
    timers.advance(3_600_000)
    text.insert(0, 'a') // flushed at once
    timers.jump(-3_600_000) // NTP steps the clock back an hour
    text.insert(1, 'b')
    timers.advance(100)
    expect(replay(flushes.map((f) => f.payload))).toBe('ab')
  })

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

/** Like the client: records updates only while the coalescer wants them, counts the rest unencoded. */
function lazySetup(mergeLimit: number, extra: Partial<CoalescerOptions> = {}) {
  const doc = new Y.Doc()
  const timers = manualTimers()
  const flushes: { payload: Uint8Array; encoding: FlushEncoding; at: number }[] = []
  const coalescer = new Coalescer(doc, { flushWindowMs: 100, mergeLimit, timers, ...extra }, (payload, encoding) =>
    flushes.push({ payload, encoding, at: timers.now() }),
  )
  let encoded = 0
  let unencoded = 0
  doc.on('afterTransactionCleanup', () => {
    if (coalescer.wantsUpdates) {
      coalescer.push(Y.encodeStateAsUpdate(doc)) // stands in for the transaction's update
      encoded += 1
    } else {
      coalescer.pushUnencoded()
      unencoded += 1
    }
  })
  return { doc, text: doc.getText('t'), timers, flushes, coalescer, counts: () => ({ encoded, unencoded }) }
}

function burstSetup() {
  const doc = new Y.Doc()
  const timers = manualTimers()
  const at: number[] = []
  const coalescer = new Coalescer(
    doc,
    { flushWindowMs: 250, mergeLimit: 1024, timers, burstMinChanges: 10, burstIdleMs: 20 },
    () => at.push(timers.now()),
  )
  doc.on('update', (update: Uint8Array) => coalescer.push(update))
  return { text: doc.getText('t'), timers, at, coalescer }
}

describe('Coalescer: unencoded changes (Yjs not asked to encode a burst)', () => {
  test('wants encoded updates only up to the merge limit of each window', () => {
    const { text, timers, coalescer, counts } = lazySetup(3)
    text.insert(0, 'a') // flushed at once
    expect(coalescer.wantsUpdates).toBe(true)
    for (let i = 0; i < 10; i++) text.insert(1 + i, 'b')
    expect(counts()).toEqual({ encoded: 4, unencoded: 7 })
    expect(coalescer.pendingCount).toBe(10)
    expect(coalescer.wantsUpdates).toBe(false)
    timers.advance(100)
    expect(coalescer.pendingCount).toBe(0)
    expect(coalescer.wantsUpdates).toBe(true)
  })

  test('a window with unencoded changes is sent as a diff holding every change, deletions included', () => {
    const { doc, text, timers, flushes } = lazySetup(2)
    text.insert(0, 'hello world')
    timers.advance(100)
    text.delete(0, 1) // encoded, flushed at once (the window was quiet)
    text.insert(0, 'J') // encoded
    text.insert(1, 'j') // encoded
    text.delete(1, 1) // unencoded (a third change with mergeLimit 2)
    text.delete(5, 6) // unencoded: deletions only the diff's delete set carries
    text.insert(5, '!') // unencoded
    timers.advance(100)
    expect(flushes.map((f) => f.encoding)).toEqual(['single', 'single', 'diff'])
    expect(replay(flushes.map((f) => f.payload))).toBe('Jello!')
    expect(replay(flushes.map((f) => f.payload))).toBe(text.toString())
    // Same state and same deletions as the typing document.
    const peer = new Y.Doc()
    for (const f of flushes) Y.applyUpdate(peer, f.payload)
    expect(Y.encodeStateVector(peer)).toEqual(Y.encodeStateVector(doc))
    expect(
      Y.equalDeleteSets(Y.createDeleteSetFromStructStore(peer.store), Y.createDeleteSetFromStructStore(doc.store)),
    ).toBe(true)
  })

  test('a lone unencoded change (merge limit 0) is still sent, as a diff', () => {
    const { text, flushes } = lazySetup(0)
    text.insert(0, 'a')
    expect(flushes.map((f) => f.encoding)).toEqual(['diff'])
    expect(replay(flushes.map((f) => f.payload))).toBe('a')
  })
})

describe('Coalescer: a burst that stops is flushed before its window ends', () => {
  test('a burst is flushed burstIdleMs after its last change, not at the window end', () => {
    const { text, timers, at } = burstSetup()
    text.insert(0, 'a') // at once
    timers.advance(5)
    for (let i = 0; i < 50; i++) text.insert(1 + i, 'x')
    timers.advance(39)
    expect(at).toEqual([0])
    timers.advance(1) // two idle checks (25, 45) saw no change
    expect(at).toEqual([0, 45])
    // The next change still waits for a full window after that flush.
    text.insert(0, 'y')
    timers.advance(249)
    expect(at).toEqual([0, 45])
    timers.advance(1)
    expect(at).toEqual([0, 45, 295])
  })

  test('a burst that goes on is not cut early', () => {
    const { text, timers, at } = burstSetup()
    text.insert(0, 'a')
    for (let t = 0; t < 240; t += 5) {
      timers.advance(5)
      for (let i = 0; i < 3; i++) text.insert(0, 'x')
    }
    timers.advance(10)
    expect(at).toEqual([0, 250])
  })

  test('typing below burstMinChanges per window keeps the fixed window', () => {
    const { text, timers, at } = burstSetup()
    text.insert(0, 'a')
    timers.advance(30)
    for (let i = 0; i < 9; i++) text.insert(0, 'b') // 9 < 10 changes: not a burst
    timers.advance(219)
    expect(at).toEqual([0])
    timers.advance(1)
    expect(at).toEqual([0, 250])
  })

  test('flush() and dispose() drop the idle check', () => {
    const { text, timers, at, coalescer } = burstSetup()
    text.insert(0, 'a')
    for (let i = 0; i < 20; i++) text.insert(0, 'x')
    coalescer.flush()
    expect(timers.pending()).toBe(0)
    for (let i = 0; i < 20; i++) text.insert(0, 'x')
    coalescer.dispose()
    expect(timers.pending()).toBe(0)
    expect(at).toHaveLength(2)
  })
})

/** Flush times for `changes` quick changes after a first one, with the default burst settings. */
function flushTimesAfter(changes: number): number[] {
  const doc = new Y.Doc()
  const timers = manualTimers()
  const at: number[] = []
  const coalescer = new Coalescer(doc, { flushWindowMs: 250, mergeLimit: 1024, timers }, () => at.push(timers.now()))
  doc.on('update', (update: Uint8Array) => coalescer.push(update))
  doc.getText('t').insert(0, 'a') // at once
  timers.advance(5)
  for (let i = 0; i < changes; i++) doc.getText('t').insert(0, 'x')
  timers.advance(300)
  return at
}

describe('Coalescer: the burst defaults', () => {
  test('64 changes in a window make a burst, flushed after 20 quiet ms; 63 wait for the window', () => {
    expect(flushTimesAfter(64)).toEqual([0, 25])
    expect(flushTimesAfter(63)).toEqual([0, 250])
  })

  test('a lone update is sent as it is; rebase while edits wait keeps them in the next diff', () => {
    const { text, timers, flushes, coalescer } = setup(0)
    text.insert(0, 'a')
    expect(flushes.map((f) => f.encoding)).toEqual(['single'])
    text.insert(1, 'b')
    text.insert(2, 'c')
    coalescer.rebase() // not valid while something is pending: ignored
    timers.advance(100)
    expect(flushes.map((f) => f.encoding)).toEqual(['single', 'diff'])
    expect(replay(flushes.map((f) => f.payload))).toBe('abc')
    expect(coalescer.pendingCount).toBe(0)
  })
})

describe('chooseEncoding', () => {
  test('merges up to the limit and diffs beyond it', () => {
    expect(chooseEncoding(1, 256)).toBe('merge')
    expect(chooseEncoding(256, 256)).toBe('merge')
    expect(chooseEncoding(257, 256)).toBe('diff')
    expect(chooseEncoding(10_000)).toBe('diff')
  })

  describe('while nothing waits for an acknowledgement', () => {
    test('each keystroke at typing speed leaves at once when the last one was acknowledged', () => {
      const { text, timers, state, flushes } = acked()
      for (let i = 0; i < 5; i++) {
        text.insert(i, 'x')
        timers.advance(5)
        state.inFlight = false // the sidecar saved it
        timers.advance(95)
      }
      expect(flushes).toEqual([0, 100, 200, 300, 400])
    })

    test('edits typed while an update is on its way wait, and leave together the moment it is acknowledged', () => {
      const { text, timers, state, flushes, coalescer, doc } = acked()
      text.insert(0, 'a') // leaves at once, now in flight
      timers.advance(30)
      text.insert(1, 'b')
      timers.advance(30)
      text.insert(2, 'c')
      expect(flushes).toEqual([0])
      state.inFlight = false
      coalescer.released()
      expect(flushes).toEqual([0, 60])
      expect(doc.getText('t').toString()).toBe('abc')
    })

    test('never flushes twice within the shortest gap, even when acknowledged at once', () => {
      const { text, timers, state, flushes, coalescer } = acked()
      text.insert(0, 'a')
      state.inFlight = false
      coalescer.released()
      text.insert(1, 'b')
      expect(flushes).toEqual([0])
      timers.advance(20)
      expect(flushes).toEqual([0, 20])
    })

    test('with no acknowledgement at all (the sidecar out of reach) the fixed window holds', () => {
      const { text, timers, flushes } = acked()
      text.insert(0, 'a')
      for (let i = 1; i < 10; i++) {
        timers.advance(50)
        text.insert(i, 'x')
      }
      timers.advance(250)
      expect(flushes).toEqual([0, 250, 500])
    })
  })
})
