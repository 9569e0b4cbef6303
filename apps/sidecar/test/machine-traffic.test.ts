/**
 * Document traffic never wakes a phone: against a daemon that takes `noUrgent` (0.14.0+, the toy's
 * default 0.14.6-toy) every send of the sidecar goes without the urgent flag; against a 0.13.19 one
 * (which would drop the unknown param) the sidecar does not send it, so its sends stay urgent there.
 */
import { createToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { A, B, baseEnv, connect, envelope, isAck, isMessage, sidecar } from './harness.ts'

async function sendsOfOneEdit(signalCliVersion: string) {
  const toy = await createToySignal({
    accounts: [A, B],
    groups: [{ name: 'doc', members: [A, B] }],
    keepAliveMs: 1000,
    signalCliVersion,
  })
  onTestFinished(() => toy.close())
  const docId = randomUUID()
  const [sa, sb] = await Promise.all([A, B].map((acct) => sidecar(baseEnv(toy, acct, docId))))
  const [a1, b1] = await Promise.all([sa, sb].map((s) => connect(s as { url: string }, docId)))
  if (a1 === undefined || b1 === undefined) throw new Error('two clients expected')
  const m = envelope(docId, a1.senderId)
  a1.send(m)
  await a1.waitFor(isAck(m.messageId))
  await b1.waitFor(isMessage(m.messageId))
  return toy.sends()
}

describe('the sidecar as machine traffic', () => {
  it('sends every update without the urgent flag when the daemon takes noUrgent (0.14.0+)', async () => {
    const sends = await sendsOfOneEdit('0.14.6')
    expect(sends.length).toBeGreaterThan(0)
    expect(sends.filter((s) => s.urgent)).toEqual([])
  })

  it('keeps to what a 0.13.19 daemon knows: no noUrgent, so its sends stay urgent', async () => {
    const sends = await sendsOfOneEdit('0.13.19')
    expect(sends.length).toBeGreaterThan(0)
    expect(sends.every((s) => s.urgent)).toBe(true)
  })
})
