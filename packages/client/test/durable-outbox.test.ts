import { encodeEnvelope } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { createIndexedDbStorage } from '../src/index.ts'
import { client, closingAfterEach, DOC_ID, freshPrefix, statusWhere } from './client-harness.ts'

const { relay, track } = closingAfterEach()

describe('durable outbox', () => {
  test('an unacknowledged edit survives a reload and is replayed with the same message id', async () => {
    const r = await relay()
    r.hold = true // Signal is stuck: nothing is acked
    const prefix = freshPrefix()
    const first = client(r.url, prefix)
    await first.conn.ready
    const sent = r.nextEnvelope((e) => e.kind === 'update')
    first.text.insert(0, 'hello')
    const original = await sent
    expect(first.conn.status().pending).toBe(1)
    await first.conn.close()

    r.hold = false
    const replayed = r.nextEnvelope((e) => e.kind === 'update')
    const second = track(client(r.url, prefix))
    await second.conn.ready
    // Loaded from IndexedDB before any network round trip.
    expect(second.text.toString()).toBe('hello')
    const again = await replayed
    expect(again.messageId).toBe(original.messageId)
    expect(again.seq).toBe(original.seq)
    expect(again.senderId).toBe(original.senderId)
    expect([...again.payload]).toEqual([...original.payload])
    const saved = new Promise((resolve) => second.conn.on('saved', resolve))
    await statusWhere(second.conn, (s) => s.pending === 0 && s.lastAckAt !== null)
    await saved
    await second.conn.close()
    const stored = await createIndexedDbStorage(DOC_ID, { prefix }).load()
    expect(stored.outbox).toEqual([])
  })

  test('writes the outbox entry before the frame leaves', async () => {
    const r = await relay()
    r.hold = true
    const prefix = freshPrefix()
    const c = track(client(r.url, prefix))
    await c.conn.ready
    const sent = r.nextEnvelope((e) => e.kind === 'update')
    c.text.insert(0, 'x')
    const envelope = await sent
    const stored = await createIndexedDbStorage(DOC_ID, { prefix }).load()
    expect(stored.outbox.map((e) => e.messageId)).toContain(envelope.messageId)
  })

  test('shows the last local state at once when the sidecar is unreachable', async () => {
    const r = await relay()
    const prefix = freshPrefix()
    const first = client(r.url, prefix)
    await first.conn.ready
    first.text.insert(0, 'kept offline')
    await first.conn.close()
    await r.close()
    const offline = track(client(r.url, prefix))
    await offline.conn.ready
    expect(offline.text.toString()).toBe('kept offline')
    expect(offline.conn.status()).toMatchObject({ loaded: true })
    expect(offline.conn.status().connection).not.toBe('connected')
  })

  test('compacts many waiting updates into one while disconnected', async () => {
    const r = await relay()
    const url = r.url
    await r.close()
    const prefix = freshPrefix()
    const c = track(client(url, prefix, { flushWindowMs: 0, compactAt: 3 }))
    await c.conn.ready
    for (let i = 0; i < 20; i++) {
      c.text.insert(i, String.fromCharCode(97 + i))
      await c.conn.flush()
    }
    const stored = await createIndexedDbStorage(DOC_ID, { prefix }).load()
    expect(stored.outbox.length).toBeLessThanOrEqual(4)
    const rebuilt = new Y.Doc()
    for (const e of stored.outbox) Y.applyUpdate(rebuilt, e.payload)
    expect(rebuilt.getText('t').toString()).toBe('abcdefghijklmnopqrst')
    expect(c.conn.status().pending).toBe(stored.outbox.length)
  })

  test('a malformed-message rejection drops the entry; other rejections keep it for replay', async () => {
    const r = await relay()
    r.hold = true
    const c = track(client(r.url, freshPrefix()))
    await c.conn.ready
    const errors: { code: string; remoteCode: string | undefined }[] = []
    c.conn.on('error', (e) => errors.push({ code: e.code, remoteCode: e.remoteCode }))
    const first = r.nextEnvelope((e) => e.kind === 'update')
    c.text.insert(0, 'a')
    const a = await first
    const second = r.nextEnvelope((e) => e.kind === 'update')
    c.text.insert(1, 'b')
    await c.conn.flush()
    const b = await second
    const [socket] = r.sockets(DOC_ID)
    const reject = (messageId: string, code: string) =>
      socket?.send(
        encodeEnvelope({
          ...a,
          kind: 'error',
          messageId,
          payload: new TextEncoder().encode(JSON.stringify({ code, message: 'no' })),
        }),
      )
    reject(b.messageId, 'SIDECAR_BUSY')
    reject(a.messageId, 'PROTO_TRUNCATED')
    await statusWhere(c.conn, (s) => s.pending === 1)
    expect(errors).toEqual([
      { code: 'CLIENT_REJECTED', remoteCode: 'SIDECAR_BUSY' },
      { code: 'CLIENT_REJECTED', remoteCode: 'PROTO_TRUNCATED' },
    ])
  })

  test('reports an undecodable frame and keeps working', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix()))
    await c.conn.ready
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    const error = new Promise<string>((resolve) => c.conn.on('error', (e) => resolve(e.code)))
    r.sockets(DOC_ID)[0]?.send(new Uint8Array([1, 2, 3]))
    expect(await error).toBe('CLIENT_BAD_FRAME')
    c.text.insert(0, 'still fine')
    await statusWhere(c.conn, (s) => s.pending === 0 && s.lastAckAt !== null)
  })
})
