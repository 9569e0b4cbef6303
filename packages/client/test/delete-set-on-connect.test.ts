/**
 * State vectors do not show deletions, so a sync-request cannot ask for one. A client that holds a
 * deletion another peer missed pushes its delete set when it connects; without that push the peer
 * keeps the deleted text for good.
 */
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { client, closingAfterEach, freshPrefix, statusWhere, textsBecome } from './client-harness.ts'

const { relay, track } = closingAfterEach()
const settled = (c: ReturnType<typeof client>) =>
  statusWhere(c.conn, (s) => s.pending === 0 && s.connection === 'connected', { what: 'connected, nothing pending' })

describe('the delete set on connect', () => {
  test('a peer that missed a deletion gets it from the next client to connect that holds it', async () => {
    const r = await relay()
    const [pa, pb, pc] = [freshPrefix(), freshPrefix(), freshPrefix()]
    const a = client(r.url, pa)
    const b = client(r.url, pb)
    const c = client(r.url, pc)
    a.text.insert(0, 'keep DROP keep')
    await textsBecome([a.doc, b.doc, c.doc], () => 'keep DROP keep')
    await Promise.all([a, b, c].map(settled))

    // A goes away; C deletes; B sees it; then B and C go away too.
    await a.conn.close()
    c.text.delete(5, 5)
    await textsBecome([b.doc, c.doc], () => 'keep keep')
    await Promise.all([settled(b), settled(c)])
    await Promise.all([b.conn.close(), c.conn.close()])

    // A comes back first (nobody to answer its sync-request), then B.
    const a2 = track(client(r.url, pa, { doc: a.doc }))
    await settled(a2)
    expect(a.text.toString()).toBe('keep DROP keep')
    const fromB = r.received.length
    track(client(r.url, pb, { doc: b.doc }))
    await textsBecome([a.doc], () => 'keep keep')
    // It came as B's delete-set push (an update), not as an answer A never asked for.
    const pushed = r.received.slice(fromB).filter((e) => e.kind === 'update')
    expect(pushed.length).toBeGreaterThan(0)
    expect(Y.decodeUpdate(pushed[0]?.payload ?? new Uint8Array()).ds.clients.size).toBeGreaterThan(0)
  })
})
