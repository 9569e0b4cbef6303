/**
 * A frame the sidecar refuses as over its per-connection rate (`SIDECAR_RATE_LIMITED`) is not
 * lost: the binding holds its sends, then sends every unacknowledged change again under its own id.
 * The refusal names a fresh message id (the sidecar refuses before it decodes), as a real one does.
 */
import { encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { describe, expect, test } from 'vitest'
import { client, closingAfterEach, DOC_ID, freshPrefix, statusWhere } from './client-harness.ts'

const { relay, track } = closingAfterEach()

const SIDECAR_ID = '22222222-2222-4222-8222-222222222222'

function rateLimited(messageId: string): Uint8Array {
  return encodeEnvelope({
    kind: 'error',
    flags: 0,
    docId: DOC_ID,
    senderId: SIDECAR_ID,
    messageId,
    seq: 0,
    payload: new TextEncoder().encode(
      JSON.stringify({ code: 'SIDECAR_RATE_LIMITED', message: 'too many frames on this connection' }),
    ),
  })
}

describe('a frame refused as too many on the connection', () => {
  test('is held, then sent again with the same id, and the change is saved', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix(), { rateLimitHoldMs: { min: 200, max: 1000 } }))
    await statusWhere(c.conn, (s) => s.connection === 'connected', { what: 'connected' })
    const updates: Envelope[] = []
    let refusedAt = 0
    r.intercept = (envelope, socket) => {
      if (envelope.kind !== 'update') return true
      updates.push(envelope)
      if (updates.length > 1) return true
      refusedAt = Date.now()
      socket.send(rateLimited('ffffffffffffffffffffffffffffffff'))
      return false // refused: neither acked nor forwarded
    }
    const errors: string[] = []
    c.conn.on('error', (e) => errors.push(e.remoteCode ?? e.code))
    c.text.insert(0, 'refused once')
    await statusWhere(c.conn, (s) => s.pending === 0 && s.lastAckAt !== null, {
      what: 'the refused change saved after the hold',
    })
    expect(updates).toHaveLength(2)
    const [first, again] = updates
    expect(again?.messageId).toBe(first?.messageId)
    expect([...(again?.payload ?? [])]).toEqual([...(first?.payload ?? [])])
    // Not resent before the hold was over.
    expect(Date.now() - refusedAt).toBeGreaterThanOrEqual(200)
    // Held and resent, so not an error of the page.
    expect(errors).toEqual([])
    expect(r.sockets(DOC_ID)).toHaveLength(1) // the same connection throughout
  })

  test('sends nothing while held; edits made meanwhile go out after it, once', async () => {
    const r = await relay()
    const c = track(client(r.url, freshPrefix(), { rateLimitHoldMs: { min: 500, max: 1000 } }))
    await statusWhere(c.conn, (s) => s.connection === 'connected', { what: 'connected' })
    let refused = false
    const during: Envelope[] = []
    let holdStart = 0
    r.intercept = (envelope, socket) => {
      if (envelope.kind !== 'update') return true
      if (!refused) {
        refused = true
        holdStart = Date.now()
        socket.send(rateLimited('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'))
        return false
      }
      if (Date.now() - holdStart < 400) during.push(envelope)
      return true
    }
    c.text.insert(0, 'a')
    await c.conn.flush()
    await new Promise((resolve) => setTimeout(resolve, 100))
    c.text.insert(1, 'b')
    await c.conn.flush()
    await statusWhere(c.conn, (s) => s.pending === 0, { what: 'both changes saved' })
    expect(during).toEqual([])
    const ids = r.received.filter((e) => e.kind === 'update').map((e) => e.messageId)
    // The refused one twice (refused, resent), the one made during the hold once.
    expect(ids).toHaveLength(3)
    expect(new Set(ids).size).toBe(2)
  })
})
