import * as Y from 'yjs'
import { WebSocket } from 'ws'
import { afterEach, describe, expect, test } from 'vitest'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { connectDoc, createMemoryStorage, type ClientStorage, type DocConnection } from '../src/index.ts'
import { DOC_ID, statusWhere } from './client-harness.ts'
import { startRelay } from './sim-relay.ts'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (let c = cleanups.pop(); c !== undefined; c = cleanups.pop()) await c()
})

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

/** Storage whose writes hang while frozen (a page unloading mid-write); thawing drops the hung ones unwritten. */
function frozenWrites(inner: ClientStorage): ClientStorage & { freeze(): void; thaw(): void } {
  let frozen = false
  const hanging: (() => void)[] = []
  return {
    ...inner,
    senderId: () => inner.senderId(),
    load: () => inner.load(),
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

describe('page-hide rescue', () => {
  test('edits whose IndexedDB writes never finished come back from the rescue slot and are sent', async () => {
    const relay = await startRelay()
    cleanups.push(() => relay.close())
    relay.hold = true
    const base = createMemoryStorage()
    const storage = frozenWrites(base)
    const page = lifecycle()
    const options = {
      sidecarUrl: relay.url,
      docId: DOC_ID,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      transport: { network: null },
    }
    const firstDoc = new Y.Doc()
    const first = connectDoc({ ...options, doc: firstDoc, storage, lifecycle: page })
    cleanups.push(async () => {
      storage.thaw()
      await first.close()
    })
    await first.ready
    storage.freeze() // from now on nothing reaches "IndexedDB"
    firstDoc.getText('t').insert(0, 'typed just before reload')
    page.hide()
    expect(base.rescue?.peek()).toBeInstanceOf(Uint8Array)
    // The page is gone without close(): nothing else runs. A new page opens on the same storage.
    relay.hold = false
    const doc = new Y.Doc()
    const second: DocConnection = connectDoc({ ...options, doc, storage: base, lifecycle: null })
    cleanups.push(() => second.close())
    await second.ready
    expect(doc.getText('t').toString()).toBe('typed just before reload')
    const sent = relay.nextEnvelope((e) => e.kind === 'update')
    const fresh = new Y.Doc()
    Y.applyUpdate(fresh, (await sent).payload)
    expect(fresh.getText('t').toString()).toBe('typed just before reload')
    await statusWhere(second, (s) => s.pending === 0)
    await second.flush()
    expect(base.rescue?.peek()).toBeUndefined()
  })

  test('a completed checkpoint clears the rescue slot', async () => {
    const relay = await startRelay()
    cleanups.push(() => relay.close())
    const storage = createMemoryStorage()
    const page = lifecycle()
    const conn = connectDoc({
      sidecarUrl: relay.url,
      docId: DOC_ID,
      doc: new Y.Doc(),
      storage,
      lifecycle: page,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      transport: { network: null },
    })
    cleanups.push(() => conn.close())
    await conn.ready
    page.hide()
    await conn.flush()
    expect(storage.rescue?.peek()).toBeUndefined()
    expect((await storage.load()).checkpoint).toBeInstanceOf(Uint8Array)
  })
})
