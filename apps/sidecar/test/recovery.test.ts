import { describe, expect, it } from 'vitest'
import type { RunningSidecar } from '../src/index.ts'
import { connect, count, envelope, isAck, isMessage, isSent, startPair } from './harness.ts'

async function health(
  s: RunningSidecar,
): Promise<{ status: number; body: { eventsStreamUp: boolean; ready: boolean; daemonReachable: boolean } }> {
  const res = await fetch(`${s.url}/healthz`)
  return {
    status: res.status,
    body: (await res.json()) as { eventsStreamUp: boolean; ready: boolean; daemonReachable: boolean },
  }
}

/** Polls /healthz until `want` holds (the stream state has no event a test can subscribe to). */
async function untilHealth(s: RunningSidecar, want: (b: { eventsStreamUp: boolean }) => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (want((await health(s)).body)) return
    await new Promise((r) => setImmediate(r))
  }
  throw new Error('health never reached the wanted state')
}

describe('recovery from stream cuts and ambiguous sends', () => {
  it('reports health: ready, daemon reachable, events stream up', async () => {
    const p = await startPair()
    expect(await health(p.a)).toEqual({
      status: 200,
      body: {
        ready: true,
        daemonReachable: true,
        eventsStreamUp: true,
        signal: { state: 'reachable', since: null, unsentEnvelopes: 0 },
        account: { linked: true },
      },
    })
  })

  it('reconnects a cut events stream and delivers later messages', async () => {
    const p = await startPair()
    const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    p.toy.faults.cutStreams()
    await untilHealth(p.b, (b) => b.eventsStreamUp)
    const m = envelope(p.docId, a1.senderId)
    a1.send(m)
    await b1.waitFor(isMessage(m.messageId))
    const metrics = await (await fetch(`${p.b.url}/metrics`)).text()
    expect(Number(/^e2e_col_events_stream_reconnects_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1)
  })

  it("delivers messages sent while B's stream was down once it reconnects", async () => {
    // B waits 0.5-1 s before reconnecting, long enough for A to send while B has no stream.
    const p = await startPair({ b: { E2E_COL_RECONNECT_BASE_MS: '1000', E2E_COL_RECONNECT_MAX_MS: '1000' } })
    const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    p.toy.faults.cutStreams()
    await untilHealth(p.b, (b) => !b.eventsStreamUp)
    const m = envelope(p.docId, a1.senderId)
    a1.send(m)
    await a1.waitFor(isAck(m.messageId))
    expect((await health(p.b)).body.eventsStreamUp).toBe(false)
    await b1.waitFor(isMessage(m.messageId), 5000)
    expect(count(b1, m.messageId)).toBe(1)
  })

  it('keeps an envelope whose sends went unanswered (no 1011), sends it again, and B gets it once', async () => {
    const p = await startPair({ a: { E2E_COL_SEND_ATTEMPTS: '2', E2E_COL_OFFLINE_PROBE_MAX_MS: '100' } })
    const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    let closed = false
    void a1.closed.then(() => (closed = true))
    // Both attempts are processed by the daemon (so B may get the body twice) but never answered.
    p.toy.faults.dropNextSends(2)
    const m = envelope(p.docId, a1.senderId)
    a1.send(m)
    await a1.waitFor(isAck(m.messageId))
    await a1.waitFor(isSent(m.messageId), 10_000)
    // A later message from the same sender proves everything before it was processed by B.
    const sentinel = envelope(p.docId, m.senderId)
    a1.send(sentinel)
    await b1.waitFor(isMessage(sentinel.messageId))
    expect(count(b1, m.messageId)).toBe(1)
    expect(closed).toBe(false)
    expect(p.toy.sends().filter((s) => s.account === '+33600000001').length).toBeGreaterThanOrEqual(3)
  })
})
