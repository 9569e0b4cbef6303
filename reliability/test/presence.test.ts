/**
 * Presence is coalesced before Signal: a page that sends hundreds of awareness frames costs its
 * document at most one presence send per interval (2 s at the default pace), the group sees the
 * page's latest state, an edit right after goes out at once, and a frame above the bound is
 * refused with `SIDECAR_PRESENCE_TOO_LARGE`.
 */
import { decodeBody, decodeEnvelope, encodeEnvelope, unpackBatch, type Envelope } from '@e2e-col/protocol'
import type { ToySignal } from '@e2e-col/toy-signal'
import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  A,
  B,
  authorTagOf,
  envelopeOf,
  firstPresence,
  pageIdOf,
  presenceUnder,
  reader,
  sidecar,
  sidecarEnv,
  toyWithThree,
  twoSidecars,
  update,
  waitFor,
  wsUrl,
} from './edge.ts'

// The default pace (one send a second, a burst of five): presence goes at most every 2 s.
const PACE = { E2E_COL_SENDS_PER_SECOND: '1', E2E_COL_SEND_BURST: '5' }

/** The kinds in each body `account` sent from `from` on. */
function bodiesOf(toy: ToySignal, account: string, from: number): Envelope['kind'][][] {
  return toy
    .sends()
    .slice(from)
    .filter((s) => s.account === account && s.message.startsWith('e2e-col:'))
    .map((s) => {
      const env = decodeEnvelope(decodeBody(s.message))
      return (env.kind === 'batch' ? unpackBatch(env) : [env]).map((e) => e.kind)
    })
}

const hasPresence = (kinds: Envelope['kind'][]): boolean => kinds.includes('awareness')

describe('presence is coalesced before Signal', () => {
  it('300 awareness frames in 3 s cost a few sends; the latest arrives; an edit right after is not held up', async () => {
    const { toy, docId, sa, sb } = await twoSidecars(PACE)
    const page = await reader(wsUrl(sa, docId))
    const atB = await reader(wsUrl(sb, docId))
    // Start-up sends are out: each sidecar's hello.
    await waitFor('both start-up hellos', () =>
      [A, B].every((account) => bodiesOf(toy, account, 0).some((kinds) => kinds.includes('health'))),
    )
    const before = toy.sends().length
    const sender = randomUUID()
    // The page's presence under its own account's id: a member's sidecar passes on no one else's.
    const pageId = pageIdOf(authorTagOf(A), 7)
    const started = Date.now()
    for (let i = 0; i < 300; i++) {
      page.ws.send(encodeEnvelope(envelopeOf(docId, sender, presenceUnder(pageId, i + 1), 'awareness')))
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 100))
    }
    const edit = envelopeOf(docId, sender, update('typed right after'))
    const presenceBeforeEdit = bodiesOf(toy, A, before).filter(hasPresence).length
    page.ws.send(encodeEnvelope(edit))
    await waitFor("the edit at B's page", () => atB.received.some((e) => e.messageId === edit.messageId), 30_000)
    // B's sidecar stamps it with its Signal sender, in an envelope of its own: matched by its clock.
    await waitFor(
      "the latest presence at B's page",
      () => atB.received.some((e) => e.kind === 'awareness' && firstPresence(e.payload)?.clock === 300),
      10_000,
    )
    const presenceSends = bodiesOf(toy, A, before).filter((kinds) => kinds.includes('awareness')).length
    const windowS = (Date.now() - started) / 1000
    // One per 2 s interval, plus the first: before, one per frame (300) at one send a second.
    expect(presenceSends).toBeLessThanOrEqual(Math.ceil(windowS / 2) + 1)
    // The edit waits for at most the presence send in flight: no presence taken after it goes first.
    const sent = bodiesOf(toy, A, before)
    const editBody = sent.findIndex((kinds) => kinds.includes('update'))
    expect(editBody).toBeGreaterThanOrEqual(0)
    expect(sent.slice(0, editBody).filter(hasPresence).length).toBeLessThanOrEqual(presenceBeforeEdit + 1)
    // Every frame the page sent was answered (replaced ones are acknowledged too), nothing refused.
    await waitFor('acks for every frame', () => page.received.filter((e) => e.kind === 'ack').length >= 301)
    expect(page.received.filter((e) => e.kind === 'error')).toEqual([])
  }, 40_000)

  it('refuses a presence frame above 1,024 bytes with a code, and sends nothing for it', async () => {
    const toy = await toyWithThree()
    const docId = randomUUID()
    const sa = await sidecar(sidecarEnv(toy, A, docId, PACE))
    const page = await reader(wsUrl(sa, docId))
    const before = toy.sends().length
    const big = envelopeOf(docId, randomUUID(), randomBytes(42_000), 'awareness')
    page.ws.send(encodeEnvelope(big))
    await waitFor('the refusal', () => page.received.some((e) => e.kind === 'error'))
    const error = page.received.find((e) => e.kind === 'error')!
    expect(error.messageId).toBe(big.messageId)
    expect(JSON.parse(new TextDecoder().decode(error.payload))).toMatchObject({ code: 'SIDECAR_PRESENCE_TOO_LARGE' })
    await new Promise((r) => setTimeout(r, 2500))
    expect(bodiesOf(toy, A, before).filter((kinds) => kinds.includes('awareness'))).toEqual([])
  }, 20_000)
})
