/**
 * When a binding emits `status` and `saved`: only on a change (the load's completion included),
 * and `saved` only once nothing is left to send.
 */
import { describe, expect, test } from 'vitest'
import { connected, scriptedBindings, settle, SIDECAR_ID, slowLoading } from './scripted-sidecar.ts'

const { open } = scriptedBindings()

describe('status events', () => {
  test('each status event differs from the one before it', async () => {
    const b = await connected(open, { flushWindowMs: 10 })
    const socket = b.socket()
    b.text.insert(0, 'a')
    b.text.insert(1, 'b')
    b.timers.advance(10)
    await settle()
    const update = socket.sent.find((e) => e.kind === 'update')
    socket.deliver({ kind: 'ack', senderId: SIDECAR_ID, messageId: update?.messageId ?? '', payload: new Uint8Array() })
    socket.deliver({ kind: 'sync-response', senderId: SIDECAR_ID, payload: new Uint8Array([0, 0]) })
    await b.conn.close()
    expect(b.statuses.length).toBeGreaterThan(3)
    b.statuses.forEach((status, i) => {
      if (i > 0) expect(status).not.toEqual(b.statuses[i - 1])
    })
    expect(b.statuses.at(-1)).toMatchObject({ lastAckAt: 10, connection: 'offline' })
  })

  test('the end of the load is announced even when nothing else changed', async () => {
    const slow = slowLoading()
    const b = open({ transport: { network: null, isOnline: () => false } }, slow.storage)
    b.text.insert(0, 'typed before the load')
    expect(b.statuses.at(-1)).toMatchObject({ loaded: false, pending: 1 })
    slow.release()
    await b.conn.ready
    expect(b.statuses.at(-1)).toMatchObject({ loaded: true, pending: 1, connection: 'offline' })
  })

  test('saved is emitted once the last pending change is acknowledged, not before', async () => {
    const b = await connected(open, { flushWindowMs: 10 })
    const socket = b.socket()
    const saved: number[] = []
    b.conn.on('saved', ({ at }) => saved.push(at))
    b.text.insert(0, 'first')
    b.timers.advance(10)
    await settle()
    b.text.insert(0, 'second ')
    b.timers.advance(10)
    await settle()
    const updates = socket.sent.filter((e) => e.kind === 'update')
    expect(updates).toHaveLength(2)
    const ack = (messageId: string | undefined): void =>
      socket.deliver({ kind: 'ack', senderId: SIDECAR_ID, messageId: messageId ?? '', payload: new Uint8Array() })
    ack(updates[0]?.messageId)
    expect(b.conn.status().pending).toBe(1)
    expect(saved).toEqual([])
    b.timers.advance(5)
    ack(updates[1]?.messageId)
    expect(saved).toEqual([25])
  })
})
