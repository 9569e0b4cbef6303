import { describe, expect, it } from 'vitest'
import { createToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { onTestFinished } from 'vitest'
import { A, B, baseEnv, connect, envelope, isAck, isMessage, isSent, sidecar, startPair } from './harness.ts'

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 'NaN')
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
    const toy = await createToySignal({ accounts: [A, B], groups: [{ name: 'doc', members: [A, B, '+33600000003'] }], faults: true })
    onTestFinished(() => toy.close())
    const docId = randomUUID()
    const [sa, sb] = await Promise.all([sidecar(baseEnv(toy, A, docId)), sidecar(baseEnv(toy, B, docId))])
    const p = { docId, toy }
    const [a1, b1] = await Promise.all([connect(sa, docId), connect(sb, docId)])
    toy.faults.rateLimitNextSends(1, { retryAfterSeconds: 1, mode: 'per-recipient' })
    const first = envelope(p.docId, a1.senderId)
    a1.send(first)
    await a1.waitFor(isSent(first.messageId))
    expect(await metric(sa.url, 'e2e_col_send_rate_limited_total')).toBe(1)
    const started = Date.now()
    const second = envelope(p.docId, a1.senderId)
    a1.send(second)
    await a1.waitFor(isSent(second.messageId))
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    await b1.waitFor(isMessage(second.messageId))
  })
})
