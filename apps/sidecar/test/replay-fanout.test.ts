/**
 * Regression (found by the reliability soak): after an ambiguous send (1011) a browser replays its
 * envelope, and the sidecar fanned it out to the document's other local browsers a second time.
 * Replays reach local browsers once, like copies from Signal.
 */
import { describe, expect, it } from 'vitest'
import { connect, count, envelope, isAck, isMessage, startPair } from './harness.ts'

describe('a browser replay after 1011', () => {
  it('is not delivered again to the other browsers on the same sidecar, nor to the group', async () => {
    const p = await startPair({ a: { E2E_COL_SEND_ATTEMPTS: '2' } })
    const [a1, a2, b1] = await Promise.all([connect(p.a, p.docId), connect(p.a, p.docId), connect(p.b, p.docId)])
    // One attempt fails before processing, the other is processed and never answered: ambiguous, 1011.
    p.toy.faults.failNextRpc(1)
    p.toy.faults.dropNextSends(1)
    const m = envelope(p.docId, a1.senderId)
    a1.send(m)
    await a2.waitFor(isMessage(m.messageId))
    expect((await a1.closed).code).toBe(1011)
    expect((await a2.closed).code).toBe(1011)
    // Both pages come back; the author replays with the same message id.
    const [a1r, a2r] = await Promise.all([connect(p.a, p.docId), connect(p.a, p.docId)])
    a1r.send(m)
    await a1r.waitFor(isAck(m.messageId))
    await b1.waitFor(isMessage(m.messageId))
    // Give a second copy time to show up (from the fan-out or from Signal).
    const probe = envelope(p.docId, a1.senderId)
    a1r.send(probe)
    await a2r.waitFor(isMessage(probe.messageId))
    await b1.waitFor(isMessage(probe.messageId))
    expect(count(a2r, m.messageId)).toBe(0)
    expect(count(b1, m.messageId)).toBe(1)
  })
})
