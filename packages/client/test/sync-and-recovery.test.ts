import { encodeEnvelope } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { client, closingAfterEach, DOC_ID, freshPrefix, statusWhere, textsBecome } from './client-harness.ts'

const { relay, track } = closingAfterEach()

describe('sync and recovery', () => {
  test('on connect it sends a sync-request carrying its state vector', async () => {
    const r = await relay()
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'before connecting')
    const request = r.nextEnvelope((e) => e.kind === 'sync-request')
    const c = track(client(r.url, freshPrefix(), { doc }))
    const envelope = await request
    expect(envelope.docId).toBe(DOC_ID)
    expect(envelope.senderId).toBe(c.conn.senderId)
    expect(Y.decodeStateVector(envelope.payload)).toEqual(Y.decodeStateVector(Y.encodeStateVector(doc)))
  })

  test("answers a peer's sync-request with only what it lacks", async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix()))
    await c.conn.ready
    c.text.insert(0, 'content the asker lacks')
    await statusWhere(c.conn, (s) => s.pending === 0 && s.connection === 'connected')
    const response = r.nextEnvelope((e) => e.kind === 'sync-response')
    const asker = new Y.Doc()
    r.sockets(DOC_ID)[0]?.send(
      encodeEnvelope({
        kind: 'sync-request',
        flags: 0,
        docId: DOC_ID,
        senderId: '22222222-2222-4222-8222-222222222222',
        messageId: 'ab'.repeat(16),
        seq: 0,
        payload: Y.encodeStateVector(asker),
      }),
    )
    Y.applyUpdate(asker, (await response).payload)
    expect(asker.getText('t').toString()).toBe('content the asker lacks')
  })

  test('two clients converge, and a late joiner catches up through sync', async () => {
    const r = await relay()
    const a = track(client(r.url, freshPrefix()))
    const b = track(client(r.url, freshPrefix()))
    await Promise.all([a.conn.ready, b.conn.ready])
    await statusWhere(b.conn, (s) => s.connection === 'connected')
    a.text.insert(0, 'from a. ')
    await textsBecome([a.doc, b.doc], () => 'from a. ')
    b.text.insert(8, 'from b.')
    await textsBecome([a.doc, b.doc], () => 'from a. from b.')
    const late = track(client(r.url, freshPrefix()))
    await textsBecome([late.doc], () => 'from a. from b.')
  })

  test('close code 4409 raises a recovery event and makes the client send its full state as a snapshot after reconnecting', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix()))
    const recoveries: string[] = []
    c.conn.on('recovery', (event) => recoveries.push(event.reason))
    await c.conn.ready
    c.text.insert(0, 'the whole history')
    await statusWhere(c.conn, (s) => s.pending === 0 && s.connection === 'connected')
    const snapshot = r.nextEnvelope((e) => e.kind === 'snapshot')
    const request = r.nextEnvelope((e) => e.kind === 'sync-request')
    r.closeAll(4409, 'history at risk')
    const envelope = await snapshot
    await request
    const fresh = new Y.Doc()
    Y.applyUpdate(fresh, envelope.payload)
    expect(fresh.getText('t').toString()).toBe('the whole history')
    expect(recoveries).toEqual(['sidecar-history-risk'])
    await statusWhere(c.conn, (s) => s.pending === 0)
  })

  test('1011 keeps the outbox and replays it with the same message id after reconnecting', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix()))
    await c.conn.ready
    await statusWhere(c.conn, (s) => s.connection === 'connected')
    let first: string | undefined
    r.intercept = (e, socket) => {
      if (e.kind !== 'update') return true
      if (first === undefined) {
        first = e.messageId
        socket.close(1011, 'ambiguous')
        return false
      }
      return true
    }
    const replay = r.nextEnvelope((e) => e.kind === 'update' && first !== undefined && e.messageId === first)
    c.text.insert(0, 'once')
    await replay
    await statusWhere(c.conn, (s) => s.pending === 0)
    expect(r.received.filter((e) => e.kind === 'update').map((e) => e.messageId)).toEqual([first, first])
  })

  test('awareness is off by default and carries presence when enabled', async () => {
    const r = await relay()
    const quiet = track(client(r.url, freshPrefix()))
    expect(quiet.conn.awareness).toBeNull()
    const a = track(client(r.url, freshPrefix(), { awareness: { idleMs: 10, intervalMs: 10 } }))
    const b = track(client(r.url, freshPrefix(), { awareness: { idleMs: 10, intervalMs: 10 } }))
    await Promise.all([a.conn.ready, b.conn.ready])
    await statusWhere(a.conn, (s) => s.connection === 'connected')
    await statusWhere(b.conn, (s) => s.connection === 'connected')
    const seen = new Promise<void>((resolve) => {
      b.conn.awareness?.on('change', () => {
        const states = [...(b.conn.awareness?.getStates().values() ?? [])]
        if (states.some((s) => (s as { user?: string }).user === 'alice')) resolve()
      })
    })
    a.conn.awareness?.setLocalStateField('user', 'alice')
    await seen
    expect(r.received.filter((e) => e.senderId === quiet.conn.senderId && e.kind === 'awareness')).toEqual([])
  })
})
