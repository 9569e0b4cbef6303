/**
 * The page-hide rescue keeps the page's full state (the next page shows all of it, offline too) and
 * the ids it wrote under; the next page sends only their part of what the rescue adds: the other
 * person's content came from the sidecar, which has it, and sent as this page's own it would be
 * dropped by every other sidecar as written under someone else's id (with the rescued keystrokes in
 * the same update).
 */
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { createMemoryStorage, type ClientStorage } from '../src/index.ts'
import { scriptedBindings, settle, type ScriptedBinding } from './scripted-sidecar.ts'

const { open } = scriptedBindings()

/** Storage whose writes hang while frozen (a page unloading mid-write); thawing drops the hung ones unwritten. */
function frozenWrites(inner: ClientStorage): ClientStorage & { freeze(): void; thaw(): void } {
  let frozen = false
  const hanging: (() => void)[] = []
  return {
    ...inner,
    commit: (change) => (frozen ? new Promise<void>((resolve) => hanging.push(resolve)) : inner.commit(change)),
    freeze() {
      frozen = true
    },
    thaw() {
      frozen = false
      for (const resolve of hanging.splice(0)) resolve()
    },
  }
}

/** A page-lifecycle stand-in whose `hide()` fires what `pagehide` would. */
function lifecycle() {
  const listeners = new Set<() => void>()
  return {
    onHide(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    hide: () => {
      for (const l of listeners) l()
    },
  }
}

/** The clients whose structs an update carries. */
function authors(update: Uint8Array): Set<number> {
  return new Set(Y.decodeUpdate(update).structs.map((s) => s.id.client))
}

async function connectedOn(base: ClientStorage, extra: Parameters<typeof open>[0] = {}): Promise<ScriptedBinding> {
  const b = open({ authorTagCache: null, ...extra }, base)
  await b.conn.ready
  b.socket().open()
  await settle()
  return b
}

/** Alice's first page: 'Hello ' stored, then Bob's text and her own after it never reach storage, and the page hides. */
async function hiddenAfterBob(): Promise<{
  base: ClientStorage
  thaw: () => void
  alice: number
  fromBob: Uint8Array
  bob: Y.Doc
}> {
  const base = createMemoryStorage()
  const storage = frozenWrites(base)
  const page = lifecycle()
  const first = await connectedOn(storage, { lifecycle: page })
  first.text.insert(0, 'Hello ')
  first.timers.advance(5000) // sent and checkpointed
  await settle()
  storage.freeze() // from now on nothing reaches "IndexedDB"
  const bob = new Y.Doc()
  Y.applyUpdate(bob, Y.encodeStateAsUpdate(first.doc))
  const sv = Y.encodeStateVector(bob)
  bob.getText('t').insert(6, 'Bob')
  const fromBob = Y.encodeStateAsUpdate(bob, sv)
  first.socket().deliver({ kind: 'update', payload: fromBob })
  first.text.insert(9, '+Alice') // right after Bob's text
  first.text.delete(0, 1) // and a deletion
  page.hide()
  return { base, thaw: () => storage.thaw(), alice: first.doc.clientID, fromBob, bob }
}

describe('page-hide rescue: only what the page wrote is sent', () => {
  test("the next page shows everything at once, and sends Alice's writing and deletion, not Bob's text", async () => {
    const { base, thaw, alice, bob } = await hiddenAfterBob()
    expect(base.rescue?.peekWriters?.()).toEqual([alice])
    // The page is gone without close(): nothing else runs. The next page opens on what was stored.
    const second = await connectedOn(base)
    expect(second.text.toString()).toBe('ello Bob+Alice') // offline too: the rescue is the full state
    await settle()
    const sent = second.sent('update')
    expect(new Set(sent.flatMap((e) => [...authors(e.payload)]))).toEqual(new Set([alice]))
    // What it sent is what Bob lacked: his replica ends with both.
    for (const e of sent) Y.applyUpdate(bob, e.payload)
    expect(bob.getText('t').toString()).toBe('ello Bob+Alice')
    // The slot is cleared once a checkpoint holds it.
    second.timers.advance(5000)
    await settle()
    expect(base.rescue?.peek()).toBeUndefined()
    expect(base.rescue?.peekWriters?.()).toBeUndefined()
    thaw() // lets the first binding close after the test
  })

  test('a slot saved without ids (by a page before they were kept) has all it adds sent, as then', async () => {
    const { base, thaw, alice, bob } = await hiddenAfterBob()
    const state = base.rescue!.peek()!
    base.rescue!.save(state) // no ids
    const second = await connectedOn(base)
    await settle()
    const sent = new Set(second.sent('update').flatMap((e) => [...authors(e.payload)]))
    expect(sent).toEqual(new Set([alice, bob.clientID]))
    thaw()
  })
})
