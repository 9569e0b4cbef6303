import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { Coalescer, type FlushEncoding } from './coalescer.ts'

const LOAD = Symbol('load')
const UNENCODED = Symbol('unencoded')

/** A coalescer fed every update of its document but those of origin LOAD (not local) or UNENCODED (the test counts them). */
function setup(mergeLimit: number) {
  const doc = new Y.Doc()
  const timers = manualTimers()
  const flushes: { payload: Uint8Array; encoding: FlushEncoding }[] = []
  const coalescer = new Coalescer(doc, { flushWindowMs: 100, mergeLimit, timers }, (payload, encoding) =>
    flushes.push({ payload, encoding }),
  )
  doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin !== LOAD && origin !== UNENCODED) coalescer.push(update)
  })
  return { doc, text: doc.getText('t'), timers, flushes, coalescer }
}

/** The clients whose items an update carries. */
function authors(update: Uint8Array): Set<number> {
  return new Set(Y.decodeUpdate(update).structs.map((s) => s.id.client))
}

describe('Coalescer: rebase', () => {
  test('a state loaded while nothing waits is not sent again by the next diff', () => {
    const { doc, text, flushes, coalescer } = setup(1024)
    const stored = new Y.Doc()
    stored.getText('t').insert(0, 'loaded from storage')
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(stored), LOAD)
    coalescer.rebase()
    doc.transact(() => text.insert(0, 'a'), UNENCODED)
    coalescer.pushUnencoded() // sent at once, as a diff
    expect(flushes.map((f) => f.encoding)).toEqual(['diff'])
    expect(authors(flushes[0]!.payload)).toEqual(new Set([doc.clientID]))
  })
})

describe('Coalescer: past the merge limit', () => {
  test('updates that were all encoded are still sent as a diff, even where merging would be smaller', () => {
    const { doc, text, timers, flushes } = setup(1)
    const updates: Uint8Array[] = []
    doc.on('update', (update: Uint8Array) => updates.push(update))
    text.insert(0, 'x'.repeat(300))
    timers.advance(100)
    // Every other character deleted: a delete set of 100 ranges, which every diff carries.
    doc.transact(() => {
      for (let i = 0; i < 100; i++) text.delete(i, 1)
    }) // sent at once
    text.delete(0, 1)
    text.delete(5, 1) // two encoded updates in one window: over the limit of 1
    timers.advance(100)
    const last = flushes.at(-1)!
    expect(last.encoding).toBe('diff')
    // Merging would have been smaller: the diff was chosen for the limit, not for its size.
    expect(Y.mergeUpdates(updates.slice(-2)).byteLength).toBeLessThan(last.payload.byteLength)
  })
})
