/**
 * The page-hide rescue holds only what the page wrote, and the next page sends nothing but that:
 * the other person's content it had received came from the sidecar, which has it, and sent as this
 * page's own it would be dropped by every other sidecar as written under someone else's id (with
 * the rescued keystrokes in the same update).
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

describe('page-hide rescue: only what the page wrote', () => {
  test("the rescue leaves out Bob's text; the next page sends Alice's keystrokes that followed it, and only them", async () => {
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
    page.hide()
    const rescued = base.rescue?.peek()
    expect(rescued).toBeInstanceOf(Uint8Array)
    expect(authors(rescued!)).toEqual(new Set([first.doc.clientID]))

    // The page is gone without close(): nothing else runs. The next page: the stored state lacks Bob's text and Alice's last keystrokes.
    const second = await connectedOn(base)
    await settle()
    const sent = second.sent('update')
    const clients = new Set(sent.flatMap((e) => [...authors(e.payload)]))
    expect(clients).toEqual(new Set([first.doc.clientID]))
    // What it sent is what Bob lacked: his replica ends with both.
    for (const e of sent) Y.applyUpdate(bob, e.payload)
    expect(bob.getText('t').toString()).toBe('Hello Bob+Alice')
    // And the page has it once Bob's text comes back from the sidecar.
    second.socket().deliver({ kind: 'sync-response', payload: fromBob })
    expect(second.text.toString()).toBe('Hello Bob+Alice')
    storage.thaw() // lets the first binding close after the test
  })
})
