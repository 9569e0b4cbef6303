/**
 * Sync amplification: a hostile member (C) asks the group for the whole document over and over,
 * in one body of 20 `sync-request`s and in 20 bodies of one. The members' sidecars (A, B) answer
 * by the group's answer rule (one elected answerer per request, one request per body, one per
 * asker and fallback bound), so the group sends at most two whole-document answers, and A's own
 * edits keep flowing meanwhile. The ack latency during the attack over the latency at rest is
 * printed, not asserted (the machine is shared).
 */
import {
  createReassembler,
  decodeBody,
  decodeEnvelope,
  encodeBody,
  encodeEnvelope,
  packBatch,
  unpackBatch,
  type Envelope,
} from '@e2e-col/protocol'
import type { ToySignal } from '@e2e-col/toy-signal'
import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  A,
  B,
  C,
  envelopeOf,
  metric,
  postAs,
  Probe,
  reader,
  sidecar,
  sidecarEnv,
  toyWithThree,
  update,
  waitFor,
  wsUrl,
} from './edge.ts'

// A steadier pace than the other abuse tests, so a whole-document answer takes a while to go out.
const PACE = { E2E_COL_SENDS_PER_SECOND: '20', E2E_COL_SEND_BURST: '5' }
const DOC_CHARS = 40_000

/** Every envelope `account` put on the group, batches unpacked and chunks reassembled. */
function sentBy(toy: ToySignal, account: string): Envelope[] {
  const reassembler = createReassembler({
    maxPartialMessages: 1000,
    maxPartialBytes: 64 * 1024 * 1024,
    ttlMs: 3_600_000,
  })
  const out: Envelope[] = []
  const take = (e: Envelope) => {
    if (e.kind !== 'chunk') return void out.push(e)
    const r = reassembler.push(e, 0)
    if (r.status === 'complete') out.push(r.envelope)
  }
  for (const s of toy.sends()) {
    if (s.account !== account || !s.message.startsWith('e2e-col:')) continue
    const env = decodeEnvelope(decodeBody(s.message))
    if (env.kind === 'batch') for (const e of unpackBatch(env)) take(e)
    else take(env)
  }
  return out
}

/** Whole-document answers: sync-responses carrying at least half the document. */
const wholeAnswers = (toy: ToySignal) =>
  [...sentBy(toy, A), ...sentBy(toy, B)].filter(
    (e) => e.kind === 'sync-response' && e.payload.byteLength >= DOC_CHARS / 4,
  ).length

/** Median ack latency of the probe's round trips over the next `ms` (the answer goes out meanwhile). */
async function medianOver(probe: Probe, ms: number): Promise<{ median: number; rounds: number }> {
  const times: number[] = []
  const end = performance.now() + ms
  while (performance.now() < end) {
    times.push(await probe.roundTrip())
    // An ack now means "saved by the sidecar" and comes at once: unpaced, the probe would trip the
    // per-connection frame limit instead of measuring the attack.
    await new Promise((r) => setTimeout(r, 50))
  }
  times.sort((a, b) => a - b)
  return { median: times[Math.floor(times.length / 2)] ?? 0, rounds: times.length }
}

/**
 * After an attack: A's ack latency over the next 3 s, then the whole-document answers in the group
 * once the first is out and `settleMs` more have passed; both printed under `attack`.
 */
async function answersAfter(
  attack: string,
  { toy, probe, atRest }: { toy: ToySignal; probe: Probe; atRest: number },
  settleMs: number,
): Promise<number> {
  const { median: during, rounds } = await medianOver(probe, 3000)
  await waitFor('an answer to the requests', () => wholeAnswers(toy) >= 1, 30_000)
  await new Promise((r) => setTimeout(r, settleMs))
  const answers = wholeAnswers(toy)
  console.log(
    `${attack}: ${answers} whole-document answer(s) in the group; A's ack ${during.toFixed(1)} ms (median of ${rounds} in the 3 s after the attack) vs ${atRest.toFixed(1)} ms at rest = ${(during / atRest).toFixed(2)}x`,
  )
  return answers
}

const request = (docId: string): Uint8Array =>
  encodeEnvelope(envelopeOf(docId, randomUUID(), Uint8Array.of(0), 'sync-request'))

async function group() {
  const toy = await toyWithThree()
  const docId = randomUUID()
  const sa = await sidecar(sidecarEnv(toy, A, docId, PACE))
  const sb = await sidecar(sidecarEnv(toy, B, docId, PACE))
  const atB = await reader(wsUrl(sb, docId))
  // A 40 KB document (random hex: it deflates only to about half), on both replicas.
  const page = await reader(wsUrl(sa, docId))
  const doc = envelopeOf(docId, randomUUID(), update(randomBytes(DOC_CHARS / 2).toString('hex')))
  page.ws.send(encodeEnvelope(doc))
  await waitFor('the document at B', () => atB.received.some((e) => e.messageId === doc.messageId), 30_000)
  const probe = await Probe.connect(wsUrl(sa, docId), docId)
  await probe.median(3)
  const atRest = await probe.median(7)
  return { toy, docId, sa, sb, probe, atRest }
}

describe('sync amplification by a hostile member', () => {
  it('answers 20 whole-document requests in one body with one answer, and edits keep flowing', async () => {
    const { toy, docId, sa, sb, probe, atRest } = await group()
    const frames = Array.from({ length: 20 }, () => request(docId))
    const body = packBatch(
      { docId, senderId: randomUUID(), messageId: randomBytes(16).toString('hex'), seq: 0 },
      frames,
      { maxBodyBytes: 2000 },
    )
    expect(body.packed).toBe(20)
    await postAs(toy, C, encodeBody(body.frame))
    // Past every fallback bound (2 s + 2 × ~14 bodies at 20/s): a late answer would be out by now.
    const answers = await answersAfter('20 requests in one body', { toy, probe, atRest }, 6000)
    expect(answers).toBeGreaterThanOrEqual(1)
    expect(answers).toBeLessThanOrEqual(2)
    const excess =
      (await metric(sa, 'e2e_col_received_dropped_total{reason="body-budget"}')) +
      (await metric(sb, 'e2e_col_received_dropped_total{reason="body-budget"}'))
    expect(excess).toBe(2 * 19)
  }, 120_000)

  it('answers 20 bodies of one request each from one member with at most two answers', async () => {
    const { toy, docId, probe, atRest } = await group()
    for (let i = 0; i < 20; i++) await postAs(toy, C, encodeBody(request(docId)))
    // The requests that waited are taken after one fallback bound; their answers are out after another.
    const answers = await answersAfter('20 bodies of one request', { toy, probe, atRest }, 10_000)
    expect(answers).toBeGreaterThanOrEqual(1)
    expect(answers).toBeLessThanOrEqual(2)
  }, 120_000)
})
