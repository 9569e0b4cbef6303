/**
 * Signal removed this computer's linked device (idle over 45 days, or removed on the phone): the
 * daemon drops the account. The sidecar says so on /healthz and on the home page's document list,
 * keeps every change it had not sent, and asks the daemon only at its probe pace.
 */
import { describe, expect, it } from 'vitest'
import { A, connect, envelope, isAck, metricValue, startPair } from './harness.ts'

const OFFLINE = { E2E_COL_OFFLINE_PROBE_MAX_MS: '300', E2E_COL_SEND_ATTEMPTS: '3' }
const NOTICE = 'This computer is no longer linked to your Signal: run `e2e-col setup --link`'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a linked device Signal removed', () => {
  it('is said on /healthz and the home page, keeps unsent changes and does not loop', async () => {
    const p = await startPair({ a: OFFLINE })
    const alice = await connect(p.a, p.docId)
    p.toy.removeLinkedDevice(A)
    const sendsBefore = p.toy.sends().length
    const edits = [envelope(p.docId, alice.senderId), envelope(p.docId, alice.senderId)]
    for (const m of edits) alice.send(m)
    // Saved by the sidecar, never refused: they wait for the device to be linked again.
    for (const m of edits) await alice.waitFor(isAck(m.messageId))

    let health: { account: { linked: boolean; notice?: string }; signal: { unsentEnvelopes: number } } | undefined
    for (let i = 0; i < 100 && health?.account.linked !== false; i++) {
      const res = await fetch(`${p.a.url}/healthz`)
      health = (await res.json()) as typeof health
      if (health?.account.linked === false) expect(res.status).toBe(503)
      else await sleep(100)
    }
    expect(health?.account).toMatchObject({ linked: false, notice: NOTICE })
    expect(health?.signal.unsentEnvelopes).toBeGreaterThanOrEqual(1)
    const docs = (await (await fetch(`${p.a.url}/v1/docs`)).json()) as { notice?: string }
    expect(docs.notice).toBe(NOTICE)

    const probesBefore = await metricValue(p.a.url, 'e2e_col_signal_probes_total')
    const quietStart = Date.now()
    await sleep(1500)
    const probes = (await metricValue(p.a.url, 'e2e_col_signal_probes_total')) - probesBefore
    // At most one probe per half the probe bound, plus the one in flight.
    expect(probes).toBeLessThanOrEqual(Math.ceil((Date.now() - quietStart) / 150) + 1)
    expect(p.toy.sends().length).toBe(sendsBefore)
    const still = (await (await fetch(`${p.a.url}/healthz`)).json()) as NonNullable<typeof health>
    expect(still.signal.unsentEnvelopes).toBe(health?.signal.unsentEnvelopes)
  })
})
