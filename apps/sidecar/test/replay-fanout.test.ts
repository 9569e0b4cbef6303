/**
 * Regression (found by the reliability soak): a browser that replays an envelope (it reconnected
 * before it saw the ack) had it fanned out to the document's other local browsers a second time.
 * Replays reach local browsers once, like copies from Signal, and Signal once.
 */
import { describe, expect, it } from 'vitest'
import { connect, count, envelope, isAck, isMessage, isSent, startPair } from './harness.ts'

describe('a browser replay', () => {
  it('is acknowledged again but not delivered again to the other browsers on the same sidecar, nor to the group', async () => {
    const p = await startPair()
    const [a1, a2, b1] = await Promise.all([connect(p.a, p.docId), connect(p.a, p.docId), connect(p.b, p.docId)])
    const m = envelope(p.docId, a1.senderId)
    a1.send(m)
    await a2.waitFor(isMessage(m.messageId))
    await a1.waitFor(isSent(m.messageId))
    // The author's page comes back and replays with the same message id.
    a1.ws.terminate()
    const a1r = await connect(p.a, p.docId)
    a1r.send(m)
    await a1r.waitFor(isAck(m.messageId))
    await b1.waitFor(isMessage(m.messageId))
    // Give a second copy time to show up (from the fan-out or from Signal).
    const probe = envelope(p.docId, a1.senderId)
    a1r.send(probe)
    await a2.waitFor(isMessage(probe.messageId))
    await b1.waitFor(isMessage(probe.messageId))
    expect(count(a2, m.messageId)).toBe(1)
    expect(count(b1, m.messageId)).toBe(1)
  })
})
