import { describe, expect, it } from 'vitest'
import { BODY_PREFIX, decodeBody, decodeEnvelope, unpackBatch } from '@e2e-col/protocol'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { onTestFinished } from 'vitest'
import { A, B, baseEnv, connect, envelope, isAck, isMessage, isSent, sidecar, startPair } from './harness.ts'

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 'NaN')
}

/** The daemon's send time of each envelope sent from index `from` on, by message id. */
function sentAt(toy: ToySignal, from: number): Map<string, number> {
  const at = new Map<string, number>()
  for (const s of toy.sends().slice(from)) {
    if (!s.message.startsWith(BODY_PREFIX)) continue
    const env = decodeEnvelope(decodeBody(s.message))
    for (const e of env.kind === 'batch' ? unpackBatch(env) : [env])
      if (!at.has(e.messageId)) at.set(e.messageId, s.timestamp)
  }
  return at
}

describe('pacing against Signal rate limits', () => {
  it('waits out retryAfterSeconds when every recipient was rate limited (-5), then sends and acks', async () => {
    const p = await startPair()
    const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    p.toy.faults.rateLimitNextSends(1, { retryAfterSeconds: 1, mode: 'all-failed' })
    const m = envelope(p.docId, a1.senderId)
    const started = Date.now()
    a1.send(m)
    // Saved by the sidecar at once; sent only once the pause is over.
    await a1.waitFor(isAck(m.messageId))
    await a1.waitFor(isSent(m.messageId))
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    await b1.waitFor(isMessage(m.messageId))
    expect(await metric(p.a.url, 'e2e_col_send_rate_limited_total')).toBe(1)
  })

  it('acks a partial rate-limit failure (it was sent) and slows the next send', async () => {
    // Three members: one rate-limited recipient out of two is a partial failure, hence a success.
    const toy = await createToySignal({
      accounts: [A, B],
      groups: [{ name: 'doc', members: [A, B, '+33600000003'] }],
      faults: true,
    })
    onTestFinished(() => toy.close())
    const docId = randomUUID()
    const [sa, sb] = await Promise.all([sidecar(baseEnv(toy, A, docId)), sidecar(baseEnv(toy, B, docId))])
    const p = { docId, toy }
    const [a1, b1] = await Promise.all([connect(sa, docId), connect(sb, docId)])
    toy.faults.rateLimitNextSends(1, { retryAfterSeconds: 1, mode: 'per-recipient' })
    const from = toy.sends().length
    const first = envelope(p.docId, a1.senderId)
    a1.send(first)
    await a1.waitFor(isSent(first.messageId))
    expect(await metric(sa.url, 'e2e_col_send_rate_limited_total')).toBe(1)
    const second = envelope(p.docId, a1.senderId)
    a1.send(second)
    await a1.waitFor(isSent(second.messageId))
    // Measured on the daemon's clock, from the rate-limited send to the next one: the test's own
    // pauses (the metrics fetch above) cannot shorten or lengthen the interval.
    const sent = sentAt(toy, from)
    const gap = (sent.get(second.messageId) ?? NaN) - (sent.get(first.messageId) ?? NaN)
    expect(gap).toBeGreaterThanOrEqual(1000)
    await b1.waitFor(isMessage(second.messageId))
  })
})
