/**
 * Regression (found by the reliability secrets test): a definite rejection by the daemon released
 * the envelope's owners before telling them, so the browser never got its
 * `SIDECAR_SEND_REJECTED` error (§4.3).
 */
import { describe, expect, it } from 'vitest'
import { B, connect, envelope, isSent, startPair } from './harness.ts'

describe('a send the daemon definitely refused', () => {
  it('is answered with a SIDECAR_SEND_REJECTED error naming the message, numbers masked', async () => {
    const p = await startPair()
    const a1 = await connect(p.a, p.docId)
    p.toy.faults.failNextSendsWith(1, { code: -1, message: `Failed to send message to ${B}` })
    const m = envelope(p.docId, a1.senderId)
    a1.send(m)
    const error = await a1.waitFor((e) => e.kind === 'error' && e.messageId === m.messageId)
    const body = JSON.parse(new TextDecoder().decode(error.payload)) as { code: string; message: string }
    expect(body.code).toBe('SIDECAR_SEND_REJECTED')
    expect(body.message).toContain('-1')
    expect(body.message).not.toContain(B)
    // It had been acknowledged as saved by the sidecar, before Signal's verdict.
    expect(a1.received.findIndex((e) => e.kind === 'ack' && e.messageId === m.messageId)).toBeLessThan(
      a1.received.indexOf(error),
    )
    // The next envelope goes through as usual.
    const next = envelope(p.docId, a1.senderId)
    a1.send(next)
    await a1.waitFor(isSent(next.messageId))
  })
})
