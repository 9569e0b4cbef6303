/**
 * The page holds edits back only while one is on its way (decision 0042): once the sidecar has
 * acknowledged everything, the next edit leaves at once whatever the flush window; while one is
 * unacknowledged, edits wait and leave together.
 */
import { encodeEnvelope } from '@e2e-col/protocol'
import { decodeUpdate } from 'yjs'
import { describe, expect, test } from 'vitest'
import { closingAfterEach, client, DOC_ID, freshPrefix, statusWhere } from './client-harness.ts'

const { relay, track } = closingAfterEach()

/** A flush window no test waits for: an edit that leaves did not wait for it. */
const LONG_WINDOW_MS = 600_000

describe('flushing when the sidecar has acknowledged everything', () => {
  test('an edit typed after the last one was acknowledged leaves at once, not at the window end', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix(), { flushWindowMs: LONG_WINDOW_MS }))
    await c.conn.ready
    c.text.insert(0, 'a') // the first after a quiet period: at once
    await r.nextEnvelope((e) => e.kind === 'update', 'the first edit')
    await statusWhere(c.conn, (s) => s.pending === 0, { what: 'the first edit acknowledged' })
    c.text.insert(1, 'b')
    const second = await r.nextEnvelope(
      (e) => e.kind === 'update' && decodeUpdate(e.payload).structs.length > 0,
      'the second edit before the window ends',
    )
    expect(second.kind).toBe('update')
  })

  test('edits typed while one is unacknowledged leave as one update when the acknowledgement comes', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix(), { flushWindowMs: LONG_WINDOW_MS }))
    await c.conn.ready
    r.hold = true // the sidecar saves nothing yet
    c.text.insert(0, 'a')
    await r.nextEnvelope((e) => e.kind === 'update', 'the first edit')
    c.text.insert(1, 'b')
    c.text.insert(2, 'c')
    r.hold = false
    r.closeAll(1012, 'restart') // the client sends its outbox again and is acknowledged
    const rest = await r.nextEnvelope(
      (e) => e.kind === 'update' && decodeUpdate(e.payload).structs.some((s) => s.length === 2),
      'the two held edits as one update',
    )
    expect(rest.kind).toBe('update')
  })

  test('edits held behind an update the sidecar refused for good leave at the refusal, not at the window end', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix(), { flushWindowMs: LONG_WINDOW_MS }))
    await c.conn.ready
    let refused: string | undefined
    r.intercept = (envelope, socket) => {
      if (envelope.kind !== 'update' || refused !== undefined) return true
      refused = envelope.messageId
      const payload = new TextEncoder().encode(JSON.stringify({ code: 'SIDECAR_READ_ONLY', message: 'read only' }))
      const error = { kind: 'error' as const, flags: 0, docId: DOC_ID, senderId: DOC_ID, seq: 0, payload }
      socket.send(encodeEnvelope({ ...error, messageId: envelope.messageId }))
      return false // refused: neither acknowledged nor forwarded
    }
    c.conn.on('error', () => {})
    c.text.insert(0, 'a') // refused for good
    c.text.insert(1, 'b') // held while 'a' waits for an answer
    const held = await r.nextEnvelope(
      (e) => e.kind === 'update' && refused !== undefined && e.messageId !== refused,
      'the held edit after the refusal',
    )
    expect(held.messageId).not.toBe(refused)
  })
})
