/**
 * What each socket's opening and closing does to a binding, played frame by frame: the synced flag,
 * the periodic resync of this connection only, the one snapshot after a recovery, plain closes that
 * are not refusals, and the frames it refuses to apply.
 */
import { CLOSE_CODES } from '@e2e-col/protocol'
import { describe, expect, test } from 'vitest'
import { DOC_ID } from './client-harness.ts'
import { connected, scriptedBindings, settle, sidecarFrame, textUpdate } from './scripted-sidecar.ts'

const { open } = scriptedBindings()
const OTHER_DOC = '44444444-4444-4444-8444-444444444444'

describe('a socket opening and closing', () => {
  test("without presence, a closed socket ends 'synced' (the sidecar's copy is no longer live)", async () => {
    const b = await connected(open)
    b.socket().receive(sidecarFrame({ kind: 'sync-response', payload: textUpdate('') }))
    expect(b.conn.status().synced).toBe(true)
    b.socket().serverClose(1011, 'restarting')
    expect(b.conn.status().synced).toBe(false)
    expect(b.statuses.at(-1)).toMatchObject({ connection: 'offline', synced: false })
  })

  test('a close that is not a refusal reports no error', async () => {
    const b = await connected(open)
    b.socket().serverClose(1011, 'restarting')
    b.socket().serverClose(1006)
    expect(b.errors).toEqual([])
  })

  test('without presence, an open still schedules the periodic resync', async () => {
    const b = await connected(open, { resyncIntervalMs: 100 })
    expect(b.sent('sync-request')).toHaveLength(1)
    b.timers.advance(100)
    expect(b.sent('sync-request')).toHaveLength(2)
  })

  test("a closed socket's resync timer dies with it: the next connection keeps its own rhythm", async () => {
    const b = await connected(open, { resyncIntervalMs: 1000 })
    b.timers.advance(500)
    b.socket().serverClose(1011)
    b.conn.reconnectNow()
    const second = b.socket()
    second.open()
    expect(second.sent.filter((e) => e.kind === 'sync-request')).toHaveLength(1)
    b.timers.advance(999) // the first connection's timer would have fired at 1000
    expect(second.sent.filter((e) => e.kind === 'sync-request')).toHaveLength(1)
    b.timers.advance(1)
    expect(second.sent.filter((e) => e.kind === 'sync-request')).toHaveLength(2)
  })

  test('after a recovery, one snapshot goes on the next connect, not on every later one', async () => {
    const b = await connected(open)
    b.text.insert(0, 'held here')
    await settle()
    b.socket().serverClose(CLOSE_CODES.HISTORY_AT_RISK)
    b.conn.reconnectNow()
    b.socket().open()
    await settle()
    const snapshots = b.sent('snapshot')
    expect(snapshots).toHaveLength(1)
    for (const e of [...b.sent('update'), ...snapshots]) {
      b.socket().receive(sidecarFrame({ kind: 'ack', messageId: e.messageId, payload: new Uint8Array() }))
    }
    expect(b.conn.status().pending).toBe(0)
    b.socket().serverClose(1011)
    b.conn.reconnectNow()
    b.socket().open()
    await settle()
    expect(b.sent('snapshot')).toHaveLength(1)
  })

  test('farewell() without presence is harmless and sends nothing', async () => {
    const b = await connected(open)
    const before = b.sent().length
    expect(() => b.conn.farewell()).not.toThrow()
    expect(b.sent()).toHaveLength(before)
  })
})

describe('frames the binding does not apply', () => {
  test('an undecodable frame is reported as CLIENT_BAD_FRAME with its cause', async () => {
    const b = await connected(open)
    b.socket().receive(new Uint8Array([1, 2, 3]))
    expect(b.errors).toHaveLength(1)
    expect(b.errors[0]).toMatchObject({ code: 'CLIENT_BAD_FRAME', message: 'undecodable frame from the sidecar' })
    expect(b.errors[0]?.cause).toBeInstanceOf(Error)
  })

  test("another document's update is not applied", async () => {
    const b = await connected(open)
    b.socket().receive(sidecarFrame({ kind: 'update', docId: OTHER_DOC, payload: textUpdate('other document') }))
    b.socket().receive(sidecarFrame({ kind: 'update', docId: DOC_ID, payload: textUpdate('this document') }))
    expect(b.text.toString()).toBe('this document')
  })
})
