/**
 * connectDoc at its edges, against the simulated sidecar: arguments it refuses, a store it cannot
 * read, a refused origin, frames for another document, and the sidecar's refusals that change what
 * the page shows (Signal refused, the id taken by another page).
 */
import { encodeDeliveryNote, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { connectDoc, createMemoryStorage, type ClientError, type ClientStorage } from '../src/index.ts'
import { client, closingAfterEach, DOC_ID, freshPrefix, statusWhere } from './client-harness.ts'

const { relay, track } = closingAfterEach()
const OTHER_DOC = '44444444-4444-4444-8444-444444444444'
const SIDECAR_ID = '22222222-2222-4222-8222-222222222222'

/** The errors a connection reports, as `code: message`. */
function errorsOf(conn: { on(event: 'error', listener: (e: ClientError) => void): () => void }): string[] {
  const errors: string[] = []
  conn.on('error', (e) => errors.push(`${e.code}: ${e.message}`))
  return errors
}

/** Waits until `check` holds (polling), failing after 10 s naming `what`. */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 5) {
    if (waited > 10_000) throw new Error(`waited 10 s for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

function frame(envelope: Partial<Envelope> & Pick<Envelope, 'kind' | 'payload'>): Uint8Array {
  return encodeEnvelope({
    flags: 0,
    docId: DOC_ID,
    senderId: SIDECAR_ID,
    messageId: 'cd'.repeat(16),
    seq: 0,
    ...envelope,
  })
}

describe('connectDoc at its edges', () => {
  test('refuses a docId that is not a canonical lowercase UUID, a bad sidecar URL, and a missing WebSocket', () => {
    const doc = new Y.Doc()
    expect(() =>
      connectDoc({ doc, sidecarUrl: 'ws://127.0.0.1:9', docId: 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA' }),
    ).toThrow(
      expect.objectContaining({ code: 'CLIENT_BAD_DOC_ID', message: 'docId must be a canonical lowercase UUID' }),
    )
    expect(() => connectDoc({ doc, sidecarUrl: 'ftp://x', docId: DOC_ID })).toThrow(
      expect.objectContaining({ code: 'CLIENT_BAD_SIDECAR_URL' }),
    )
    // Node 20 has no global WebSocket.
    expect((globalThis as { WebSocket?: unknown }).WebSocket).toBeUndefined()
    expect(() =>
      connectDoc({ doc, sidecarUrl: 'ws://127.0.0.1:9', docId: DOC_ID, storage: createMemoryStorage() }),
    ).toThrow(expect.objectContaining({ code: 'CLIENT_NO_WEBSOCKET' }))
  })

  test('a store that cannot be read: said once, nothing written, edits still sent from memory', async () => {
    const r = await relay()
    const memory = createMemoryStorage()
    let commits = 0
    const broken: ClientStorage = {
      senderId: () => Promise.reject(new Error('private mode')),
      load: () => memory.load(),
      commit: (change) => {
        commits += 1
        return memory.commit(change)
      },
    }
    const c = track(client(r.url, freshPrefix(), { storage: broken }))
    const errors = errorsOf(c.conn)
    await c.conn.ready
    expect(errors).toEqual(['CLIENT_STORAGE_FAILED: local storage unavailable; changes are kept in memory only'])
    expect(c.conn.senderId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/)
    c.text.insert(0, 'kept in memory')
    const update = await r.nextEnvelope((e) => e.kind === 'update', 'the edit')
    expect(update.senderId).toBe(c.conn.senderId)
    await statusWhere(c.conn, (s) => s.pending === 0 && s.loaded)
    expect(commits).toBe(0)
  })

  test('stored records it could not read are reported with their count', async () => {
    const r = await relay()
    const memory = createMemoryStorage()
    const skipping: ClientStorage = {
      ...memory,
      load: async () => ({ ...(await memory.load()), skipped: 2 }),
    }
    const c = track(client(r.url, freshPrefix(), { storage: skipping }))
    const errors = errorsOf(c.conn)
    await c.conn.ready
    expect(errors).toEqual(['CLIENT_STORAGE_FAILED: 2 unreadable stored records were skipped'])
  })

  test("a refused origin is reported with the sidecar's words, or a plain sentence when it gave none", async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix()))
    const errors = errorsOf(c.conn)
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    r.closeAll(4403, 'https://x.example is not allowed')
    await until('the refusal', () => errors.length === 1)
    c.conn.reconnectNow()
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    r.closeAll(4403, '')
    await until('the second refusal', () => errors.length === 2)
    expect(errors).toEqual([
      'CLIENT_ORIGIN_NOT_ALLOWED: the sidecar refused this page: https://x.example is not allowed (no retry until reconnected)',
      "CLIENT_ORIGIN_NOT_ALLOWED: the sidecar refused this page: this page's origin is not allowed (no retry until reconnected)",
    ])
  })

  test('frames for another document are ignored; any frame sets lastFrameAt', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix()))
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    expect(c.conn.lastFrameAt).toBe(0)
    const other = new Y.Doc()
    other.getText('t').insert(0, 'not this document')
    const [socket] = r.sockets(DOC_ID)
    socket?.send(frame({ kind: 'update', docId: OTHER_DOC, payload: Y.encodeStateAsUpdate(other) }))
    socket?.send(frame({ kind: 'update', payload: Y.encodeStateAsUpdate(other) }))
    await until('the update for this document', () => c.text.length > 0)
    expect(c.conn.lastFrameAt).toBeGreaterThan(0)
    expect(c.text.toString()).toBe('not this document') // once: the other document's copy was not applied
  })

  test("Signal's refusal of a change is reported, shown as refused, and the change is no longer pending", async () => {
    const r = await relay()
    r.hold = true
    const c = track(client(r.url, freshPrefix()))
    const rejected: ClientError[] = []
    c.conn.on('error', (e) => rejected.push(e))
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    c.text.insert(0, 'x')
    const update = await r.nextEnvelope((e) => e.kind === 'update', 'the edit')
    const payload = new TextEncoder().encode(
      JSON.stringify({ code: 'SIDECAR_SEND_REJECTED', message: 'Untrusted identity' }),
    )
    r.sockets(DOC_ID)[0]?.send(frame({ kind: 'error', messageId: update.messageId, payload }))
    const status = await statusWhere(c.conn, (s) => s.pending === 0 && s.delivery.refused === 1)
    expect(status.delivery).toMatchObject({ signal: 'refused', reason: 'Untrusted identity' })
    expect(rejected.map((e) => [e.code, e.remoteCode, e.message])).toEqual([
      ['CLIENT_REJECTED', 'SIDECAR_SEND_REJECTED', 'Untrusted identity'],
    ])
  })

  test('a message id another page holds: the change goes again under a new id, nothing reported', async () => {
    const r = await relay()
    r.hold = true
    const c = track(client(r.url, freshPrefix()))
    const errors = errorsOf(c.conn)
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    c.text.insert(0, 'x')
    const first = await r.nextEnvelope((e) => e.kind === 'update', 'the edit')
    const again = r.nextEnvelope((e) => e.kind === 'update', 'the edit again')
    const payload = new TextEncoder().encode(JSON.stringify({ code: 'SIDECAR_MESSAGE_ID_TAKEN', message: 'taken' }))
    r.sockets(DOC_ID)[0]?.send(frame({ kind: 'error', messageId: first.messageId, payload }))
    const second = await again
    expect(second.messageId).not.toBe(first.messageId)
    expect(second.payload).toEqual(first.payload)
    expect(errors).toEqual([])
  })

  test('close() is idempotent and leaves the connection offline, sending nothing more', async () => {
    const r = await relay()
    const c = client(r.url, freshPrefix())
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    await Promise.all([c.conn.close(), c.conn.close()])
    expect(c.conn.status().connection).toBe('offline')
    const before = r.received.length
    c.text.insert(0, 'after close')
    await c.conn.flush()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(r.received).toHaveLength(before)
  })
  test('an unreadable page-hide rescue is reported and cleared; the stored document still loads', async () => {
    const r = await relay()
    const storage = createMemoryStorage()
    const saved = new Y.Doc()
    saved.getText('t').insert(0, 'stored')
    await storage.commit({ checkpoint: Y.encodeStateAsUpdate(saved) })
    storage.rescue?.save(new Uint8Array([1, 2, 3]))
    const c = track(client(r.url, freshPrefix(), { storage }))
    const errors = errorsOf(c.conn)
    await c.conn.ready
    await c.conn.flush()
    expect(errors).toEqual(['CLIENT_STORAGE_FAILED: the page-hide rescue state was unreadable'])
    expect(c.text.toString()).toBe('stored')
    expect(storage.rescue?.peek()).toBeUndefined()
  })

  test("the sidecar's delivery notes: an unreadable one changes nothing, a readable one is passed on with the ids Signal took", async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix()))
    const notes: string[] = []
    c.conn.on('delivery', (n) => notes.push(n.signal))
    c.conn.on('sent', ({ messageIds }) => notes.push(`sent ${messageIds.join(',')}`))
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    const [socket] = r.sockets(DOC_ID)
    socket?.send(frame({ kind: 'delivery', payload: new Uint8Array([0xff]) }))
    socket?.send(
      frame({
        kind: 'delivery',
        payload: encodeDeliveryNote({ signal: 'reachable', since: null, unsent: 0, sent: [] }),
      }),
    )
    socket?.send(
      frame({
        kind: 'delivery',
        payload: encodeDeliveryNote({ signal: 'reachable', since: null, unsent: 0, sent: ['ab'.repeat(16)] }),
      }),
    )
    await until('two notes', () => notes.length >= 3)
    expect(notes).toEqual(['reachable', 'reachable', `sent ${'ab'.repeat(16)}`])
    expect(c.conn.status().delivery.signal).toBe('reachable')
  })
})
