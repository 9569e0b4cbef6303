import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { manualTimers } from '@e2e-col/sync/testing'
import { Coalescer, encodeOwnUpdate, type FlushEncoding } from './coalescer.ts'
import { trackLocalChanges } from './local-changes.ts'

const REMOTE = Symbol('remote')
const LOAD = Symbol('load')
const RESCUE = Symbol('rescue')

/** A coalescer fed as the binding feeds it (trackLocalChanges), with `mergeLimit`. */
function setup(mergeLimit: number) {
  const doc = new Y.Doc()
  const timers = manualTimers()
  const flushes: { payload: Uint8Array; encoding: FlushEncoding }[] = []
  const coalescer = new Coalescer(doc, { flushWindowMs: 100, mergeLimit, timers }, (payload, encoding) => {
    flushes.push({ payload, encoding })
    changes.sync()
  })
  const changes = trackLocalChanges({
    doc,
    coalescer,
    remoteOrigin: REMOTE,
    loadOrigin: LOAD,
    active: () => true,
    onLocalChange: () => {},
    onAnyChange: () => {},
  })
  return { doc, text: doc.getText('t'), timers, flushes }
}

/** The clients whose structs an update carries. */
function authors(update: Uint8Array): Set<number> {
  return new Set(Y.decodeUpdate(update).structs.map((s) => s.id.client))
}

/** Another person's page: its edits arrive as remote updates. */
function remotePeer(doc: Y.Doc) {
  const peer = new Y.Doc()
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc))
  return {
    peer,
    /** The peer types `chars` at the start; the update is applied to `doc` as remote. */
    type(chars: string) {
      const before = Y.encodeStateVector(peer)
      peer.getText('t').insert(0, chars)
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(peer, before), REMOTE)
    },
  }
}

describe("Coalescer: a page sends only its own person's structs", () => {
  // mergeLimit 0: every multi-change window is a diff; 1000: merge vs diff, whichever is smaller
  // (for typed keystrokes the diff usually is); both must leave the remote structs out.
  test.each([0, 1, 1000])('a remote update between two local edits is not in the flush (merge limit %i)', (limit) => {
    const { doc, text, timers, flushes } = setup(limit)
    text.insert(0, 'x') // flushed at once: the window starts
    const bob = remotePeer(doc)
    for (let i = 0; i < 40; i++) text.insert(text.length, 'a')
    bob.type('bbbb')
    for (let i = 0; i < 40; i++) text.insert(text.length, 'a')
    timers.advance(100)
    expect(flushes).toHaveLength(2)
    const payload = flushes[1]!.payload
    expect(authors(payload)).toEqual(new Set([doc.clientID]))
    // The local edits are all there: a replica holding Bob's edits ends where this page is.
    Y.applyUpdate(bob.peer, flushes[0]!.payload)
    Y.applyUpdate(bob.peer, payload)
    expect(bob.peer.getText('t').toString()).toBe(text.toString())
    expect(text.toString().split('a')).toHaveLength(81)
  })

  test('a deletion of a remote character still leaves (the delete set is not authorship)', () => {
    const { doc, text, timers, flushes } = setup(0)
    text.insert(0, 'x')
    const bob = remotePeer(doc)
    bob.type('b')
    text.insert(text.length, 'a')
    text.delete(0, 1) // Bob's b
    timers.advance(100)
    const payload = flushes.at(-1)!.payload
    expect(authors(payload)).toEqual(new Set([doc.clientID]))
    Y.applyUpdate(bob.peer, flushes[0]!.payload)
    Y.applyUpdate(bob.peer, payload)
    expect(bob.peer.getText('t').toString()).toBe('xa')
  })

  test('edits under an id the page switched away from within the window still leave', () => {
    const { doc, text, timers, flushes } = setup(0)
    text.insert(0, 'x')
    const first = doc.clientID
    const bob = remotePeer(doc)
    text.insert(1, 'a')
    bob.type('b')
    doc.clientID = first + 1 // as a derived id switch does
    text.insert(text.length, 'c')
    timers.advance(100)
    const payload = flushes.at(-1)!.payload
    expect(authors(payload)).toEqual(new Set([first, first + 1]))
    Y.applyUpdate(bob.peer, flushes[0]!.payload)
    Y.applyUpdate(bob.peer, payload)
    expect(bob.peer.getText('t').toString()).toBe(text.toString())
  })

  test("structs a local transaction adds under another id leave with this page's edits; a remote update's do not", () => {
    const { doc, text, timers, flushes } = setup(0)
    text.insert(0, 'x')
    const bob = remotePeer(doc)
    const before = new Y.Doc()
    Y.applyUpdate(before, Y.encodeStateAsUpdate(doc))
    before.getText('t').insert(0, 'r')
    bob.type('b')
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(before, Y.encodeStateVector(doc)), RESCUE)
    text.insert(0, 'a')
    timers.advance(100)
    expect(authors(flushes.at(-1)!.payload)).toEqual(new Set([doc.clientID, before.clientID]))
  })
})

describe('encodeOwnUpdate', () => {
  test("structs waiting for missing ones (someone else's) are not in it", () => {
    const doc = new Y.Doc()
    const bob = new Y.Doc()
    bob.getText('t').insert(0, 'b')
    const first = Y.encodeStateAsUpdate(bob)
    const sv = Y.encodeStateVector(bob)
    bob.getText('t').insert(1, 'c')
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(bob, sv)) // without the first: it waits
    expect(doc.store.pendingStructs).not.toBeNull()
    doc.getText('t').insert(0, 'a')
    expect(authors(Y.encodeStateAsUpdate(doc, Y.encodeStateVector(doc)))).toEqual(new Set([bob.clientID]))
    expect(authors(encodeOwnUpdate(doc, []))).toEqual(new Set())
    expect(authors(encodeOwnUpdate(doc, [doc.clientID]))).toEqual(new Set([doc.clientID]))
    // A client id known only from its waiting structs is left out too.
    const carol = new Y.Doc()
    Y.applyUpdate(carol, first)
    const known = Y.encodeStateVector(carol)
    carol.getText('t').insert(1, 'z')
    const late = new Y.Doc()
    Y.applyUpdate(late, Y.encodeStateAsUpdate(carol, known)) // carol's z, after bob's b it lacks
    late.getText('t').insert(0, 'a')
    expect(Y.encodeStateVector(late)).toEqual(Y.encodeStateVector(new Map([[late.clientID, 1]])))
    expect(authors(encodeOwnUpdate(late, [late.clientID]))).toEqual(new Set([late.clientID]))
  })
})
