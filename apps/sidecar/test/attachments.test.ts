/**
 * Large envelopes as one Signal attachment between two sidecars (contract §4.2, §4.6, §4.10):
 * a newcomer gets a whole document in one send, a spoiled attachment is asked for again through
 * sync, a failed upload falls back to text, and a member that lacks the capability keeps the group
 * on the text path.
 */
import { randomUUID } from 'node:crypto'
import { CAPABILITY, decodeAttachmentRef, decodeHealth, encodeHealth } from '@e2e-col/protocol'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  A,
  B,
  baseEnv,
  CAPABLE,
  capabilitiesExchanged,
  isSent,
  metricValue,
  poll,
  sidecar,
  startPair,
  tempDataDir,
} from './harness.ts'
import { call } from './docs-api.ts'
import { sentEnvelopes } from './signal-log.ts'
import { YBrowser } from './ybrowser.ts'

/** About `chars` characters of prose-like text (words drawn at random: deflates about 2-3x, like text). */
function prose(chars: number, seed = 1): string {
  const words =
    'shared document signal group edit merge sidecar browser the a of and paragraph review member attachment history page offline sync answer request state vector update snapshot chunk body boundary pace limit token bucket replica store folder lock kill restart'.split(
      ' ',
    )
  const out: string[] = []
  let x = seed
  for (let n = 0; n < chars;) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    const w = words[x % words.length] as string
    out.push(x % 11 === 0 ? `${w}.` : w)
    n += w.length + 1
  }
  return out.join(' ')
}

/** The features `account` announced in its capability announcements after send `from`, in order. */
function announcementsFrom(toy: ToySignal, account: string, from: number): number[] {
  return sentEnvelopes(toy, from)
    .filter((s) => s.account === account && s.envelope.kind === 'health')
    .flatMap((s) => {
      const features = decodeHealth(s.envelope.payload).capabilities?.features
      return features === undefined ? [] : [features]
    })
}

const attachmentSends = (
  toy: { sends(): readonly { account: string; attachments?: number }[] },
  account: string,
  from = 0,
) =>
  toy
    .sends()
    .slice(from)
    .filter((s) => s.account === account && (s.attachments ?? 0) > 0)

describe('large envelopes as one Signal attachment', () => {
  it('a big document reaches a newly started member through one attachment, its page showing all of it', async () => {
    // The daemon keeps one message for a stream that is not open: Bob's sidecar, started later,
    // misses Alice's text and can only get it by asking.
    const toy = await createToySignal({
      accounts: [A, B],
      groups: [{ name: 'doc', members: [A, B] }],
      keepAliveMs: 1000,
      maxQueuedPerAccount: 1,
    })
    onTestFinished(() => toy.close())
    const docId = randomUUID()
    const a = await sidecar(baseEnv(toy, A, docId, CAPABLE))
    const alice = new YBrowser(docId)
    await alice.connect(a.url)
    alice.edit(prose(80_000))
    // Sent, not only saved by the sidecar: the document's own sends are over before Bob starts.
    await alice.until(() => [...alice.updates.keys()].every((id) => alice.received.some(isSent(id))), 30_000)

    const before = toy.sends().length
    const b = await sidecar(baseEnv(toy, B, docId, { ...CAPABLE, E2E_COL_SYNC_ON_START: '1' }))
    const bob = new YBrowser(docId)
    await bob.connect(b.url)
    await bob.until(() => bob.text === alice.text, 30_000)

    const sent = sentEnvelopes(toy, before)
    const fromAlice = attachmentSends(toy, A, before)
    expect(fromAlice).toHaveLength(1)
    // The one attachment answered Bob's sync-request: it names this document, carries a frame at
    // least the attachment threshold (4096 bytes by default), and is none of Alice's own updates.
    const answer = sent.find((s) => s.account === A && s.envelope.kind === 'attachment')
    expect(answer?.envelope.docId).toBe(docId)
    expect(decodeAttachmentRef(answer!.envelope).totalLength).toBeGreaterThanOrEqual(4096)
    expect(alice.updates.has(answer!.envelope.messageId)).toBe(false)
    expect(await metricValue(a.url, 'e2e_col_attachments_sent_total{outcome="sent"}')).toBe(1)
    expect(await metricValue(b.url, 'e2e_col_attachments_fetched_total{outcome="ok"}')).toBe(1)
    // Bob's hello and sync-request share one body; nobody sent the document as chunks.
    expect(sent.filter((s) => s.envelope.kind === 'chunk')).toHaveLength(0)
    expect(sent.filter((s) => s.account === B && s.envelope.kind === 'sync-request')).toHaveLength(1)
  })

  it.each([
    ['corrupt', 'corrupt'],
    ['lose', 'missing'],
  ] as const)('an attachment the daemon spoils (%s) is counted and recovered through sync', async (mode, outcome) => {
    const p = await startPair({
      a: { ...CAPABLE, E2E_COL_SYNC_DELAY_MAX_MS: '100' },
      b: { ...CAPABLE, E2E_COL_SYNC_DELAY_MAX_MS: '100' },
    })
    await capabilitiesExchanged(p.a, p.b)
    const alice = new YBrowser(p.docId)
    const bob = new YBrowser(p.docId)
    await Promise.all([alice.connect(p.a.url), bob.connect(p.b.url)])
    p.toy.faults.spoilNextAttachments(1, { mode })
    const before = p.toy.sends().length
    alice.edit(prose(30_000, 2))
    await bob.until(() => bob.text === alice.text, 30_000)
    expect(await metricValue(p.b.url, `e2e_col_attachments_fetched_total{outcome="${outcome}"}`)).toBe(1)
    expect(await metricValue(p.b.url, `e2e_col_received_dropped_total{reason="attachment-${outcome}"}`)).toBe(1)
    // Bob's sidecar asked again, and the answer came whole.
    const sent = sentEnvelopes(p.toy, before)
    expect(sent.some((s) => s.account === B && s.envelope.kind === 'sync-request')).toBe(true)
    expect(await metricValue(p.b.url, 'e2e_col_attachments_fetched_total{outcome="ok"}')).toBeGreaterThanOrEqual(1)
  })

  it('a refused upload falls back to chunked text: the envelope is acknowledged and delivered once', async () => {
    const p = await startPair({ a: CAPABLE, b: CAPABLE })
    await capabilitiesExchanged(p.a, p.b)
    const alice = new YBrowser(p.docId)
    const bob = new YBrowser(p.docId)
    await Promise.all([alice.connect(p.a.url), bob.connect(p.b.url)])
    // A first small edit carries the announcement of Alice's page: the fault below meets the upload.
    alice.edit('first. ')
    await bob.until(() => bob.text === alice.text, 30_000)
    p.toy.faults.failNextSendsWith(1, {
      code: -32603,
      message: 'Failed to send message: [429] Rate limit exceeded: 429 (RateLimitException) (UnexpectedErrorException)',
    })
    const before = p.toy.sends().length
    alice.edit(prose(30_000, 3))
    await alice.until(() => alice.outbox.size === 0, 30_000)
    await bob.until(() => bob.text === alice.text, 30_000)
    expect(await metricValue(p.a.url, 'e2e_col_attachments_sent_total{outcome="fell-back"}')).toBe(1)
    expect(attachmentSends(p.toy, A, before)).toHaveLength(0)
    expect(sentEnvelopes(p.toy, before).filter((s) => s.envelope.kind === 'chunk').length).toBeGreaterThan(2)
    expect(bob.received.filter((e) => e.kind === 'update')).toHaveLength(2)
  })

  it('a group with one member that lacks the capabilities stays on plain text, both ways', async () => {
    const p = await startPair({ a: CAPABLE, b: { E2E_COL_CAPABILITIES: 'none' } })
    // Bob's sidecar announces nothing (as one from before capabilities); Alice's hears nothing back.
    await poll(
      async () => (await metricValue(p.a.url, 'e2e_col_capability_announcements_total{direction="sent"}')) >= 1,
      "Alice's announcement",
    )
    const alice = new YBrowser(p.docId)
    const bob = new YBrowser(p.docId)
    await Promise.all([alice.connect(p.a.url), bob.connect(p.b.url)])
    alice.edit(prose(30_000, 4))
    await bob.until(() => bob.text === alice.text, 30_000)
    bob.edit(prose(20_000, 5))
    await alice.until(() => alice.text === bob.text, 30_000)
    expect(p.toy.sends().filter((s) => (s.attachments ?? 0) > 0)).toHaveLength(0)
    expect(await metricValue(p.a.url, 'e2e_col_envelopes_deflated_total')).toBe(0)
    expect(await metricValue(p.b.url, 'e2e_col_received_dropped_total{reason="unsupported-flag"}')).toBe(0)
    expect(
      await metricValue(p.a.url, 'e2e_col_capability_announcements_total{direction="sent"}'),
    ).toBeGreaterThanOrEqual(1)
    expect(await metricValue(p.b.url, 'e2e_col_capability_announcements_total{direction="sent"}')).toBe(0)
  })

  it('a browser cannot announce capabilities or authors for its account: refused, nothing sent', async () => {
    const p = await startPair({ a: CAPABLE, b: CAPABLE })
    await capabilitiesExchanged(p.a, p.b)
    const alice = new YBrowser(p.docId)
    await alice.connect(p.a.url)
    const before = p.toy.sends().length
    const forged = alice.sendRaw('health', encodeHealth({ capabilities: { envelopeVersion: 1, features: 0 } }))
    const claimed = alice.sendRaw('health', encodeHealth({ authors: [42] }))
    const probe = alice.sendRaw('health', new Uint8Array(0))
    await alice.until(() => alice.acked.has(probe.messageId))
    const errors = alice.received
      .filter((e) => e.kind === 'error')
      .map((e) => [e.messageId, (JSON.parse(new TextDecoder().decode(e.payload)) as { code: string }).code])
    expect(errors).toEqual([
      [forged.messageId, 'SIDECAR_BAD_PAYLOAD'],
      [claimed.messageId, 'SIDECAR_BAD_PAYLOAD'],
    ])
    expect(sentEnvelopes(p.toy, before).map((s) => s.envelope.messageId)).toEqual([probe.messageId])
  })
  it('a document that stopped reading attachments stays so when it leaves memory and comes back, and says when it reads them again', async () => {
    // Alice's sidecar takes a quiet document out of memory after a second; a withdrawal lasts two
    // minutes, long enough on a busy machine for everything before its end below.
    const RESTORE_MS = 120_000
    const toy = await createToySignal({ accounts: [A, B], groups: [{ name: 'doc', members: [A, B] }], faults: true })
    onTestFinished(() => toy.close())
    const docId = randomUUID()
    const fast = { ...CAPABLE, E2E_COL_SYNC_DELAY_MAX_MS: '100' }
    const lazy = { E2E_COL_EVICT_AFTER_MS: '1000', E2E_COL_ATTACHMENT_RESTORE_MS: String(RESTORE_MS) }
    const a = await sidecar(baseEnv(toy, A, docId, { ...fast, ...lazy }))
    const bobEnv = baseEnv(toy, B, docId, { ...fast, E2E_COL_DATA_DIR: tempDataDir(), E2E_COL_SYNC_ON_START: '1' })
    const b1 = await sidecar(bobEnv)
    await capabilitiesExchanged(a, b1)
    const textAtAlice = async () => (await call(a, 'GET', `/v1/docs/${docId}/text?target=t`)).json.text as string
    /** Whether Alice's announcements after send `from` say she reads attachments (the last one's word). */
    const aliceReads = (from: number): boolean =>
      ((announcementsFrom(toy, A, from).at(-1) ?? 0) & CAPABILITY.attachments) !== 0
    const aliceSaid = (from: number) => async () => announcementsFrom(toy, A, from).length > 0

    // Alice's daemon loses Bob's attachments: after three in a row her sidecar stops reading them here.
    let mark = toy.sends().length
    toy.faults.spoilNextAttachments(1000, { mode: 'lose' })
    const bob1 = new YBrowser(docId)
    await bob1.connect(b1.url)
    for (let i = 0; i < 3; i++) bob1.edit(prose(30_000, 20 + i))
    // (Her answer to Bob's first hello may come first: the withdrawal is her last word here.)
    await poll(async () => (await aliceSaid(mark)()) && !aliceReads(mark), 'the withdrawal announced', 30_000)
    toy.faults.spoilNextAttachments(0, { mode: 'lose' })
    await poll(async () => (await textAtAlice()) === bob1.text, "Bob's edit at Alice (as text)", 30_000)
    bob1.close()
    await b1.close()
    await poll(
      async () => (await metricValue(a.url, 'e2e_col_documents_in_memory')) === 0,
      "Alice's document out of memory",
      30_000,
    )

    // Bob starts again: his hello loads Alice's document, whose answer still leaves attachments out,
    // so Bob's next large edit reaches her as text.
    mark = toy.sends().length
    const b2 = await sidecar(bobEnv)
    await poll(aliceSaid(mark), "Alice's answer to Bob's hello", 30_000)
    expect(aliceReads(mark)).toBe(false)
    const bob2 = new YBrowser(docId)
    await bob2.connect(b2.url)
    await bob2.until(() => bob2.text === bob1.text, 30_000)
    bob2.edit(prose(30_000, 30))
    await poll(async () => (await textAtAlice()) === bob2.text, "Bob's next edit at Alice", 30_000)
    expect(await metricValue(b2.url, 'e2e_col_attachments_sent_total{outcome="sent"}')).toBe(0)

    // When the withdrawal ends, her document (out of memory or not) says so, and attachments flow again.
    mark = toy.sends().length
    const heard = await metricValue(b2.url, 'e2e_col_capability_announcements_total{direction="received"}')
    await poll(aliceSaid(mark), 'attachments announced again', RESTORE_MS + 30_000)
    expect(aliceReads(mark)).toBe(true)
    await poll(
      async () => (await metricValue(b2.url, 'e2e_col_capability_announcements_total{direction="received"}')) > heard,
      "Alice's announcement at Bob",
      30_000,
    )
    bob2.edit(prose(30_000, 31))
    await poll(async () => (await textAtAlice()) === bob2.text, "Bob's last edit at Alice", 30_000)
    expect(await metricValue(b2.url, 'e2e_col_attachments_sent_total{outcome="sent"}')).toBe(1)
    expect(await metricValue(a.url, 'e2e_col_attachments_fetched_total{outcome="ok"}')).toBeGreaterThanOrEqual(1)
  }, 300_000)
})
