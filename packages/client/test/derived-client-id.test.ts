/**
 * Account-derived client ids on the page (decision 0023): the sidecar's `delivery` note names the
 * account's author tag, the document then writes under ids carrying it (derived at once on the next
 * load from the cached tag), Yjs's own replacement of the id is undone, presence follows the id,
 * and what a page sends as its `update` holds only its own person's structs.
 */
import { AUTHOR_TAG_MIN, authorTagOf, encodeDeliveryNote, type DeliveryNote } from '@e2e-col/protocol'
import { applyAwarenessUpdate, Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { afterEach, describe, expect, test, vi } from 'vitest'
import {
  authorTagKey,
  createMemoryStorage,
  E2eColProvider,
  localAuthorTagCache,
  memoryAuthorTagCache,
  type AuthorTagCache,
} from '../src/index.ts'
import { DOC_ID } from './client-harness.ts'
import {
  connected,
  PEER_ID,
  scriptedBindings,
  scriptedSockets,
  settle,
  sidecarFrame,
  type ScriptedBinding,
} from './scripted-sidecar.ts'

const { open } = scriptedBindings()
const TAG = AUTHOR_TAG_MIN + 4242
const NOTE: DeliveryNote = { signal: 'reachable', since: null, unsent: 0, sent: [] }

afterEach(() => {
  vi.unstubAllGlobals()
})

/** The clients whose structs the page's `update` envelopes carried. */
function updateAuthors(b: ScriptedBinding): Set<number> {
  return new Set(b.sent('update').flatMap((e) => Y.decodeUpdate(e.payload).structs.map((s) => s.id.client)))
}

/** A `delivery` envelope from the page's sidecar (or from `senderId`). */
function sidecarDelivery(payload: Uint8Array, senderId?: string): Uint8Array {
  return sidecarFrame({ kind: 'delivery', payload, ...(senderId === undefined ? {} : { senderId }) })
}

/** The sidecar's note naming the account's tag. */
function sayTag(b: ScriptedBinding, author = TAG): void {
  b.socket().receive(sidecarDelivery(encodeDeliveryNote({ ...NOTE, author })))
}

describe('the delivery note names the author tag', () => {
  test('the document switches to a derived id: later edits are under it, earlier ones stay; the tag is cached', async () => {
    const cache = memoryAuthorTagCache()
    const b = await connected(open, { authorTagCache: cache })
    const legacy = b.doc.clientID
    b.text.insert(0, 'before')
    await settle()
    const switched: number[] = []
    b.conn.on('clientId', ({ before, clientId }) => switched.push(before, clientId))
    sayTag(b)
    const derived = b.doc.clientID
    expect(authorTagOf(derived)).toBe(TAG)
    expect(switched).toEqual([legacy, derived])
    expect(b.conn.authorTag).toBe(TAG)
    expect(cache.tag).toBe(TAG)
    b.timers.advance(1000)
    b.text.insert(0, 'after')
    b.timers.advance(1000)
    await settle()
    expect(updateAuthors(b)).toEqual(new Set([legacy, derived]))
    // The same tag again changes nothing.
    sayTag(b)
    expect(b.doc.clientID).toBe(derived)
  })

  test("a note from anyone but the page's own sidecar does not set the tag", async () => {
    const cache = memoryAuthorTagCache()
    const b = await connected(open, { authorTagCache: cache })
    sayTag(b) // the greeting: the sidecar's sender id is now known
    const derived = b.doc.clientID
    b.socket().receive(sidecarDelivery(encodeDeliveryNote({ ...NOTE, author: TAG + 1 }), PEER_ID))
    expect(b.doc.clientID).toBe(derived)
    expect(cache.tag).toBe(TAG)
  })

  test('with a cached tag the id is derived when the binding is made, before the first edit', async () => {
    const doc = new Y.Doc()
    const b = open({ doc, authorTagCache: memoryAuthorTagCache(TAG) })
    expect(authorTagOf(doc.clientID)).toBe(TAG)
    await b.conn.ready
    b.socket().open()
    b.text.insert(0, 'x')
    await settle()
    expect(updateAuthors(b)).toEqual(new Set([doc.clientID]))
  })

  test('Yjs replacing the id (a remote update carried it) is undone: same tag, new random part', async () => {
    const b = await connected(open, { authorTagCache: memoryAuthorTagCache(TAG) })
    const derived = b.doc.clientID
    const squatter = new Y.Doc()
    squatter.clientID = derived
    squatter.getText('t').insert(0, 'z')
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {}) // Yjs says it changed the id
    b.socket().deliver({ kind: 'update', payload: Y.encodeStateAsUpdate(squatter) })
    logged.mockRestore()
    expect(b.doc.clientID).not.toBe(derived)
    expect(authorTagOf(b.doc.clientID)).toBe(TAG)
    b.timers.advance(1000)
    b.text.insert(0, 'y')
    await settle()
    expect(updateAuthors(b).has(b.doc.clientID)).toBe(true)
    expect(updateAuthors(b).has(derived)).toBe(false)
  })
})

describe('presence follows the id', () => {
  test("the local state moves to the derived id; peers see the old id's state removed", async () => {
    const b = await connected(open, { awareness: {}, authorTagCache: memoryAuthorTagCache() })
    const awareness = b.conn.awareness!
    awareness.setLocalStateField('user', { name: 'Ada' })
    const legacy = b.doc.clientID
    const peer = new Awareness(new Y.Doc())
    const heard = (): void => {
      for (const e of b.sent('awareness').splice(0)) applyAwarenessUpdate(peer, e.payload, 'test')
    }
    b.timers.advance(60_000)
    heard()
    expect(peer.getStates().get(legacy)).toEqual({ user: { name: 'Ada' } })
    const before = b.sent('awareness').length
    sayTag(b)
    const derived = b.doc.clientID
    expect(awareness.clientID).toBe(derived)
    expect(awareness.getStates().has(legacy)).toBe(false)
    expect(awareness.getLocalState()).toEqual({ user: { name: 'Ada' } })
    // Sent at once: the removal under the old id, then the state under the derived one.
    const moved = b.sent('awareness').slice(before)
    expect(moved).toHaveLength(2)
    for (const e of moved) applyAwarenessUpdate(peer, e.payload, 'test')
    expect(peer.getStates().has(legacy)).toBe(false)
    expect(peer.getStates().get(derived)).toEqual({ user: { name: 'Ada' } })
    peer.destroy()
  })

  test('an Awareness made before the binding derived the id is moved at once', () => {
    const doc = new Y.Doc()
    const instance = new Awareness(doc)
    const legacy = instance.clientID
    instance.setLocalStateField('user', { name: 'Ada' })
    open({ doc, awareness: { instance }, authorTagCache: memoryAuthorTagCache(TAG) })
    expect(authorTagOf(doc.clientID)).toBe(TAG)
    expect(instance.clientID).toBe(doc.clientID)
    expect([...instance.getStates().keys()]).toEqual([doc.clientID])
    expect(legacy).not.toBe(doc.clientID)
    instance.destroy()
  })
})

/** A provider over a scripted socket (never connected) with `cache`. */
function provider(cache: AuthorTagCache, awareness?: false, connect = false) {
  const doc = new Y.Doc()
  const { WebSocket, sockets } = scriptedSockets()
  const p = new E2eColProvider('ws://sidecar.test', DOC_ID, doc, {
    WebSocketPolyfill: WebSocket,
    lifecycle: null,
    connect,
    storage: createMemoryStorage(),
    authorTagCache: cache,
    transport: { network: null },
    ...(awareness === false ? { awareness } : {}),
  })
  return { doc, p, sockets }
}

/** A localStorage stand-in over a Map. */
function fakeStorage(): Map<string, string> & {
  getItem(k: string): string | null
  setItem(k: string, v: string): void
} {
  const map = new Map<string, string>() as Map<string, string> & {
    getItem(k: string): string | null
    setItem(k: string, v: string): void
  }
  map.getItem = (k) => map.get(k) ?? null
  map.setItem = (k, v) => void map.set(k, v)
  return map
}

describe('E2eColProvider', () => {
  test.each([undefined, false as const])('its awareness carries the derived id (awareness option %s)', (option) => {
    const { doc, p } = provider(memoryAuthorTagCache(TAG), option)
    expect(authorTagOf(doc.clientID)).toBe(TAG)
    expect(p.awareness.clientID).toBe(doc.clientID)
    expect([...p.awareness.getStates().keys()]).toEqual([doc.clientID])
    p.destroy()
  })

  test.each([undefined, false as const])(
    "its awareness follows the switch the sidecar's note brings (awareness option %s)",
    async (option) => {
      const { doc, p, sockets } = provider(memoryAuthorTagCache(), option, true)
      const legacy = doc.clientID
      await p.connection.ready
      sockets.at(-1)!.open()
      sockets.at(-1)!.receive(sidecarDelivery(encodeDeliveryNote({ ...NOTE, author: TAG })))
      expect(authorTagOf(doc.clientID)).toBe(TAG)
      expect(p.awareness.clientID).toBe(doc.clientID)
      expect([...p.awareness.getStates().keys()]).toEqual([doc.clientID])
      expect(p.awareness.getStates().has(legacy)).toBe(false)
      p.destroy()
      await p.whenDestroyed
    },
  )
})

describe('the tag cache in localStorage', () => {
  test('kept per sidecar host; a value that is not a tag is a miss; none without localStorage', () => {
    expect(localAuthorTagCache('127.0.0.1:7601')).toBeNull()
    const storage = fakeStorage()
    vi.stubGlobal('localStorage', storage)
    const alice = localAuthorTagCache('127.0.0.1:7601')!
    const bob = localAuthorTagCache('127.0.0.1:7602')!
    alice.write(TAG)
    expect(authorTagKey('127.0.0.1:7601')).toBe('e2e-col-author-tag@127.0.0.1:7601')
    expect(storage.get(authorTagKey('127.0.0.1:7601'))).toBe(String(TAG))
    expect(alice.read()).toBe(TAG)
    expect(bob.read()).toBeUndefined()
    storage.set(authorTagKey('127.0.0.1:7602'), '3') // below the smallest tag
    expect(bob.read()).toBeUndefined()
    storage.set(authorTagKey('127.0.0.1:7602'), 'junk')
    expect(bob.read()).toBeUndefined()
  })

  test('a storage that throws is a miss, never an error', () => {
    vi.stubGlobal('localStorage', {
      getItem: () => {
        throw new Error('blocked')
      },
      setItem: () => {
        throw new Error('quota')
      },
    })
    const cache = localAuthorTagCache('h')!
    expect(() => cache.write(TAG)).not.toThrow()
    expect(cache.read()).toBeUndefined()
  })

  test('connectDoc uses it by default: the cached tag of its sidecar derives the id', () => {
    const storage = fakeStorage()
    storage.setItem(authorTagKey('sidecar.test'), String(TAG))
    vi.stubGlobal('localStorage', storage)
    const doc = new Y.Doc()
    open({ doc, authorTagCache: undefined })
    expect(authorTagOf(doc.clientID)).toBe(TAG)
  })
})

describe("what a page sends as its update is its own person's writing", () => {
  test('a remote update applied between two local edits is not in the flushed payload', async () => {
    const b = await connected(open, { authorTagCache: null })
    b.text.insert(0, 'x') // at once: the window starts
    const bob = new Y.Doc()
    Y.applyUpdate(bob, Y.encodeStateAsUpdate(b.doc))
    for (let i = 0; i < 30; i++) b.text.insert(b.text.length, 'a')
    const sv = Y.encodeStateVector(bob)
    bob.getText('t').insert(0, 'bbb')
    b.socket().deliver({ kind: 'update', payload: Y.encodeStateAsUpdate(bob, sv) })
    for (let i = 0; i < 30; i++) b.text.insert(b.text.length, 'a')
    b.timers.advance(1000)
    await settle()
    expect(updateAuthors(b)).toEqual(new Set([b.doc.clientID]))
    for (const e of b.sent('update')) Y.applyUpdate(bob, e.payload)
    expect(bob.getText('t').toString()).toBe(b.text.toString())
    expect(b.text.toString()).toBe(`bbbx${'a'.repeat(60)}`)
  })
})

describe('the delete set pushed on connect', () => {
  test("carries no one's structs, not even a peer's that wait for missing ones", async () => {
    const b = await connected(open, { authorTagCache: null })
    b.text.insert(0, 'abc')
    b.text.delete(0, 1) // a delete set to push
    const bob = new Y.Doc()
    bob.getText('t').insert(0, 'b')
    const sv = Y.encodeStateVector(bob)
    bob.getText('t').insert(1, 'c')
    b.socket().deliver({ kind: 'update', payload: Y.encodeStateAsUpdate(bob, sv) }) // waits for bob's first
    expect(b.doc.store.pendingStructs).not.toBeNull()
    b.timers.advance(1000)
    await settle()
    const before = b.sent('update').length
    b.socket().serverClose(1006)
    b.conn.reconnectNow()
    b.socket().open()
    await settle()
    // The unacknowledged outbox goes again (this page's own), then the delete set alone.
    const pushed = b.sent('update').slice(before)
    const clients = new Set(pushed.flatMap((e) => Y.decodeUpdate(e.payload).structs.map((s) => s.id.client)))
    expect(clients).toEqual(new Set([b.doc.clientID]))
    const last = Y.decodeUpdate(pushed.at(-1)!.payload)
    expect(last.structs).toEqual([])
    expect(last.ds.clients.size).toBeGreaterThan(0)
  })
})
