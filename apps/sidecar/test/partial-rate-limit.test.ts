/**
 * Regression (found by the reliability soak): a send where one recipient was rate limited is
 * acknowledged, but that member never got it and nothing repaired the hole, so its document
 * diverged for good. The body is now sent to the group again after the pause.
 */
import { createToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { A, B, baseEnv, connect, count, envelope, isAck, isMessage, sidecar } from './harness.ts'

const C = '+33600000003'

describe('a partial rate-limit failure', () => {
  it('still reaches the rate-limited member, once, after the pause', async () => {
    const toy = await createToySignal({
      accounts: [A, B, C],
      groups: [{ name: 'doc', members: [A, B, C] }],
      faults: true,
      keepAliveMs: 1000,
    })
    onTestFinished(() => toy.close())
    const docId = randomUUID()
    const [sa, sb, sc] = await Promise.all([A, B, C].map((acct) => sidecar(baseEnv(toy, acct, docId))))
    const [a1, b1, c1] = await Promise.all([sa, sb, sc].map((s) => connect(s as { url: string }, docId)))
    if (a1 === undefined || b1 === undefined || c1 === undefined) throw new Error('three clients expected')
    // The first recipient of A's next send (B) is rate limited; C gets it.
    toy.faults.rateLimitNextSends(1, { retryAfterSeconds: 1, mode: 'per-recipient' })
    const m = envelope(docId, a1.senderId)
    a1.send(m)
    await a1.waitFor(isAck(m.messageId))
    await c1.waitFor(isMessage(m.messageId))
    await b1.waitFor(isMessage(m.messageId), 5000)
    // C got the body twice from Signal and delivered it once.
    expect(count(c1, m.messageId)).toBe(1)
    expect(count(b1, m.messageId)).toBe(1)
    expect(toy.sends().filter((s) => s.account === A).length).toBe(2)
  })
})
