/**
 * Offline is normal: with the toy's network-loss switch on (every send answers -32603 "Failed to
 * send message: … (IOException)", as signal-cli without network does), a sidecar acknowledges
 * each change once it is durable, tells its pages "unreachable" with the count it holds, closes no
 * socket and asks the daemon at a bounded pace; once the network is back it sends the merged
 * backlog, exchanges state vectors with the group and tells the pages what went out.
 *
 * The toy runs on the real clock, so an offline "hour" is compressed: the probe backoff's bound is
 * 300 ms here instead of 60 s, and the edits of both sides come as fast as a person types for an
 * hour at one flush per 6 s (600 changes each). The bound on daemon requests is asserted from the
 * same numbers (probes ≤ window / (bound / 2) + the backoff's ramp).
 */
import { decodeDeliveryNote, type DeliveryNote, type Envelope } from '@e2e-col/protocol'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { spawnSidecar } from './child-sidecar.ts'
import {
  A,
  B,
  baseEnv,
  connect,
  envelope,
  metricValue,
  poll,
  sidecar,
  startPair,
  startToy,
  tempDataDir,
} from './harness.ts'
import { sentEnvelopes } from './signal-log.ts'
import { pageOn, type YBrowser } from './ybrowser.ts'

// The test browsers send every edit as its own frame, unpaced (a real client coalesces them): the
// per-connection frame limit is lifted so it cannot refuse edits the test then waits for.
const OFFLINE = {
  E2E_COL_OFFLINE_PROBE_MAX_MS: '300',
  E2E_COL_SEND_ATTEMPTS: '3',
  E2E_COL_FRAMES_PER_SECOND: '100000',
  E2E_COL_FRAME_BURST: '100000',
}
const notes = (received: readonly Envelope[]): DeliveryNote[] =>
  received
    .filter((e) => e.kind === 'delivery')
    .map((e) => decodeDeliveryNote(e.payload))
    .filter((n): n is DeliveryNote => n !== undefined)
const lastNote = (b: YBrowser): DeliveryNote | undefined => notes(b.received).at(-1)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('a sidecar whose Signal is unreachable', () => {
  it(
    'acknowledges each change as saved, says "unreachable" with the count it holds, closes nothing and probes at a bounded pace; then sends the merged backlog',
    { timeout: 60_000 },
    async () => {
      const p = await startPair({ a: OFFLINE, b: OFFLINE })
      const [alice, bob] = await Promise.all([pageOn(p.docId, p.a.url), pageOn(p.docId, p.b.url)])
      await alice.until(() => lastNote(alice)?.signal === 'reachable')
      let closed = false
      void alice.closed().then(() => (closed = true))

      p.toy.faults.setNetworkLoss(true)
      const sendsBefore = p.toy.sends().length
      const windowStart = Date.now()
      for (let i = 0; i < 30; i++) {
        alice.edit(`a${i};`)
        await sleep(50)
      }
      // Every change is acknowledged ("saved by your sidecar") although nothing reached Signal.
      await alice.until(() => alice.outbox.size === 0)
      await alice.until(
        () =>
          lastNote(alice)?.signal === 'unreachable' &&
          lastNote(alice)?.unsent !== undefined &&
          (lastNote(alice)?.unsent ?? 0) > 0,
      )
      const offlineNote = lastNote(alice)
      expect(offlineNote?.since).toBeGreaterThanOrEqual(windowStart - 1000)
      expect(p.toy.sends().length).toBe(sendsBefore)
      // A few more seconds of offline editing: no socket closed, the daemon asked at the probe pace.
      const probesBefore = await metricValue(p.a.url, 'e2e_col_signal_probes_total')
      const quietStart = Date.now()
      for (let i = 30; i < 60; i++) {
        alice.edit(`a${i};`)
        await sleep(100)
      }
      const quietMs = Date.now() - quietStart
      const probes = (await metricValue(p.a.url, 'e2e_col_signal_probes_total')) - probesBefore
      expect(probes).toBeGreaterThan(0)
      // At most one probe per half the bound (the least jittered delay), plus the one in flight.
      expect(probes).toBeLessThanOrEqual(Math.ceil(quietMs / 150) + 1)
      expect(closed).toBe(false)
      const health = (await (await fetch(`${p.a.url}/healthz`)).json()) as {
        signal: { state: string; unsentEnvelopes: number }
      }
      expect(health.signal.state).toBe('unreachable')
      expect(health.signal.unsentEnvelopes).toBeGreaterThan(0)
      expect(await metricValue(p.a.url, 'e2e_col_signal_state{state="unreachable"}')).toBe(1)

      // Back online: the backlog goes out merged, the pages hear what was sent, Bob converges.
      const healAt = p.toy.sends().length
      p.toy.faults.setNetworkLoss(false)
      await bob.until(() => bob.text === alice.text, 20_000)
      await alice.until(() => lastNote(alice)?.signal === 'reachable' && lastNote(alice)?.unsent === 0, 20_000)
      const sentIds = new Set(notes(alice.received).flatMap((n) => n.sent))
      for (const id of alice.acked) expect(sentIds.has(id)).toBe(true)
      const updatesOut = sentEnvelopes(p.toy, healAt).filter((s) => s.envelope.kind === 'update').length
      // 60 changes, one merged update (and the state-vector exchange), not 60 sends.
      expect(updatesOut).toBeLessThanOrEqual(3)
      expect(closed).toBe(false)
    },
  )

  it(
    'two sidecars offline for an hour of edits on both sides converge when the network returns, page states right at every step',
    { timeout: 90_000 },
    async () => {
      const p = await startPair({ a: OFFLINE, b: OFFLINE })
      const [alice, bob] = await Promise.all([pageOn(p.docId, p.a.url), pageOn(p.docId, p.b.url)])
      p.toy.faults.setNetworkLoss(true)
      const EDITS = 600
      for (let i = 0; i < EDITS; i++) {
        alice.edit(`a${i};`)
        bob.edit(`b${i};`)
        if (i % 50 === 0) await sleep(20)
      }
      await alice.until(() => alice.outbox.size === 0, 20_000)
      await bob.until(() => bob.outbox.size === 0, 20_000)
      for (const b of [alice, bob])
        await b.until(() => lastNote(b)?.signal === 'unreachable' && (lastNote(b)?.unsent ?? 0) > 0, 20_000)
      // Neither side has seen the other's edits.
      expect(alice.text.includes('b0;')).toBe(false)
      const healAt = p.toy.sends().length
      p.toy.faults.setNetworkLoss(false)
      await poll(
        () => alice.text === bob.text && alice.text.includes(`b${EDITS - 1};`) && bob.text.includes(`a${EDITS - 1};`),
        'convergence',
        40_000,
      )
      for (const b of [alice, bob])
        await b.until(() => lastNote(b)?.signal === 'reachable' && lastNote(b)?.unsent === 0, 20_000)
      // Each side's backlog went out as a few merged updates, not 600 sends.
      const updates = sentEnvelopes(p.toy, healAt).filter((s) => s.envelope.kind === 'update').length
      expect(updates).toBeLessThanOrEqual(10)
    },
  )
})

describe('SIGKILL of a sidecar while Signal is unreachable', () => {
  it(
    'loses nothing it had acknowledged: the restarted sidecar sends it once the network returns',
    { timeout: 60_000 },
    async () => {
      const toy = await startToy()
      const docId = randomUUID()
      const aEnv = baseEnv(toy, A, docId, { ...OFFLINE, E2E_COL_DATA_DIR: tempDataDir() })
      const b = await sidecar(baseEnv(toy, B, docId, OFFLINE))
      const bob = await pageOn(docId, b.url)
      toy.faults.setNetworkLoss(true)
      const first = spawnSidecar(aEnv)
      const alice = await pageOn(docId, first.ready)
      for (let i = 0; i < 40; i++) alice.edit(`k${i};`)
      await alice.until(() => alice.outbox.size === 0)
      const acked = alice.text
      first.child.kill('SIGKILL')
      expect((await first.exited).signal).toBe('SIGKILL')
      // The page is gone too: only the sidecar's store holds these changes now.
      alice.close()
      const second = spawnSidecar(aEnv)
      const watcher = await pageOn(docId, second.ready)
      // The restarted sidecar still holds all 40 (its durable outbox), and says so.
      await watcher.until(() => lastNote(watcher)?.unsent === 40, 20_000)
      toy.faults.setNetworkLoss(false)
      await bob.until(() => bob.text === acked, 30_000)
      await watcher.until(() => lastNote(watcher)?.unsent === 0 && lastNote(watcher)?.signal === 'reachable', 30_000)
    },
  )
})

describe('a send Signal definitely refuses', () => {
  it(
    'is reported to its page with the reason after the ack, the pages say "refused", and the next good send clears it',
    { timeout: 30_000 },
    async () => {
      const p = await startPair()
      const a1 = await connect(p.a, p.docId)
      await a1.waitFor((e) => e.kind === 'delivery')
      p.toy.faults.identityFailNextSends(1)
      const m = envelope(p.docId, a1.senderId)
      a1.send(m)
      await a1.waitFor((e) => e.kind === 'ack' && e.messageId === m.messageId)
      const error = await a1.waitFor((e) => e.kind === 'error' && e.messageId === m.messageId)
      expect((JSON.parse(new TextDecoder().decode(error.payload)) as { code: string }).code).toBe(
        'SIDECAR_SEND_REJECTED',
      )
      await a1.waitFor((e) => e.kind === 'delivery' && decodeDeliveryNote(e.payload)?.signal === 'refused')
      const refused = notes(a1.received).find((n) => n.signal === 'refused')
      expect(refused?.reason).toMatch(/-4|untrusted|identity/i)
      expect(refused?.unsent).toBe(0) // dropped from the queue: nothing waits forever
      const next = envelope(p.docId, a1.senderId)
      a1.send(next)
      await a1.waitFor(
        (e) => e.kind === 'delivery' && (decodeDeliveryNote(e.payload)?.sent ?? []).includes(next.messageId),
      )
      expect(notes(a1.received).at(-1)?.signal).toBe('reachable')
    },
  )
})

describe('message ids are bound to their sender', () => {
  it(
    "refuses a second page's reuse of another page's id, and keeps the first page's content",
    { timeout: 30_000 },
    async () => {
      const p = await startPair()
      const x = await connect(p.a, p.docId)
      const y = await connect(p.a, p.docId)
      const b1 = await connect(p.b, p.docId)
      const first = envelope(p.docId, x.senderId)
      x.send(first)
      await x.waitFor((e) => e.kind === 'ack' && e.messageId === first.messageId)
      const reuse = { ...envelope(p.docId, y.senderId), messageId: first.messageId }
      y.send(reuse)
      const error = await y.waitFor((e) => e.kind === 'error' && e.messageId === first.messageId)
      expect((JSON.parse(new TextDecoder().decode(error.payload)) as { code: string }).code).toBe(
        'SIDECAR_MESSAGE_ID_TAKEN',
      )
      expect(y.received.some((e) => e.kind === 'ack')).toBe(false)
      // The first page's replay of its own id is still acknowledged, and B got the first content.
      x.send(first)
      await poll(
        () => x.received.filter((e) => e.kind === 'ack' && e.messageId === first.messageId).length === 2,
        'the replay ack',
      )
      const got = await b1.waitFor((e) => e.kind === 'update' && e.messageId === first.messageId)
      expect(got.payload).toEqual(first.payload)
    },
  )
})
