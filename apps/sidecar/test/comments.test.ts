/**
 * Comments end to end on the toy, each sidecar in a process of its own: Alice shares "Trip plan"
 * with Bob (an editor) and Carol (a commenter). Carol comments on a range through her sidecar;
 * Alice and Bob list it with her name; Bob replies, Alice resolves; a comment whose text Bob
 * deletes is listed orphaned with its quote everywhere. A flood of comment entries crafted under
 * Carol's own client id and sent straight to the group is taken only up to her rate by Alice's and
 * Bob's sidecars (the rest dropped and counted), and Bob's own comments still reach Alice.
 */
import { clientIdFor, decodeDeliveryNote, encodeBody, encodeEnvelope } from '@e2e-col/protocol'
import { reviewMap } from '@e2e-col/review'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import * as Y from 'yjs'
import { describe, expect, it, onTestFinished } from 'vitest'
import { runDocsCommand } from '../src/cli/docs-cli.ts'
import { ENTRY_RATE } from '../src/review/entry-rate.ts'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, CAROL, call, libraryEnv, rpc, shareAndAccept } from './docs-api.ts'
import { connect, envelope, metricValue, poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

type Peer = { url: string; port: number }
type Thread = {
  id: string
  by: string
  body: string
  quote: string
  orphaned: boolean
  resolved: boolean
  replies: { by: string; body: string }[]
}
const RATE_DROPS = 'e2e_col_received_dropped_total{reason="review-rate"}'
const TARGET = { name: 't', kind: 'text' }

async function libraryProcess(toy: ToySignal, account: string): Promise<Peer> {
  const url = await spawnSidecar(libraryEnv(toy, account, { E2E_COL_MEMBERS_REFRESH_MS: '1000' })).ready
  return { url, port: Number(new URL(url).port) }
}

const threads = async (s: Peer, docId: string): Promise<Thread[]> =>
  (await call(s, 'GET', `/v1/docs/${docId}/comments`)).json.comments as Thread[]
const textOf = async (s: Peer, docId: string): Promise<string> =>
  (await call(s, 'GET', `/v1/docs/${docId}/text?target=t&kind=text`)).json.text as string

async function sharedWithCommenter() {
  const toy = await createToySignal({
    accounts: [ALICE, BOB, CAROL],
    names: { [ALICE]: 'Alice', [BOB]: 'Bob', [CAROL]: 'Carol' },
    faults: true,
    keepAliveMs: 1000,
  })
  onTestFinished(() => toy.close())
  const [alice, bob, carol] = await Promise.all([
    libraryProcess(toy, ALICE),
    libraryProcess(toy, BOB),
    libraryProcess(toy, CAROL),
  ])
  const { docId, groupId } = await shareAndAccept(
    alice,
    { title: 'Trip plan', members: [BOB, { number: CAROL, role: 'commenter' }] },
    [bob, carol],
  )
  const page = await pageOn(docId, alice.url)
  page.edit('Day 1: museum. Day 2: long hike and a picnic.')
  for (const s of [bob, carol])
    await poll(async () => (await textOf(s, docId)).endsWith('picnic.'), 'every sidecar holds the text')
  return { toy, alice, bob, carol, docId, groupId, page }
}

describe('comments', () => {
  it("a commenter's comment reaches everyone with her name; a reply and a resolve travel; deleted text leaves it orphaned", async () => {
    const { alice, bob, carol, docId, page } = await sharedWithCommenter()
    const made = await call(carol, 'POST', `/v1/docs/${docId}/comments`, {
      body: { index: 22, length: 9, quote: 'long hike', body: 'too long?', target: TARGET },
    })
    expect(made.status).toBe(201)
    const id = made.json.id as string
    await poll(async () => (await threads(alice, docId)).some((t) => t.id === id), 'Alice lists the comment')
    expect((await threads(alice, docId))[0]).toMatchObject({
      by: expect.stringMatching(/^Carol \(/),
      quote: 'long hike',
      orphaned: false,
    })
    expect(
      (await call(bob, 'POST', `/v1/docs/${docId}/comments/${id}/replies`, { body: { body: 'shorten it' } })).status,
    ).toBe(201)
    await poll(async () => (await threads(alice, docId))[0]?.replies.length === 1, 'Alice lists the reply')
    expect((await call(alice, 'POST', `/v1/docs/${docId}/comments/${id}/resolve`, { body: {} })).status).toBe(200)
    for (const s of [bob, carol])
      await poll(async () => (await threads(s, docId))[0]?.resolved === true, 'the resolve reaches everyone')
    expect((await threads(carol, docId))[0]?.replies).toEqual([
      expect.objectContaining({ by: expect.stringMatching(/^Bob \(/), body: 'shorten it' }),
    ])
    // `e2e-col docs review` prints the thread as Alice's sidecar lists it.
    const printed = await runDocsCommand({
      action: 'review',
      target: 'Trip plan',
      sidecar: alice.url,
      json: false,
      people: [],
    })
    expect(printed).toMatch(
      /^Comments\n {2}“long hike” \[resolved\] {2}· {2}[0-9a-z]+\n {4}Carol \(.*\), .* UTC: too long\?\n {4}Bob \(.*\), .* UTC: shorten it$/m,
    )

    // Alice's page deletes the commented words: every sidecar lists the thread orphaned, with its quote.
    page.doc.getText('t').delete(22, 9)
    for (const s of [alice, bob, carol])
      await poll(async () => (await threads(s, docId))[0]?.orphaned === true, 'orphaned everywhere')
    expect((await threads(bob, docId))[0]).toMatchObject({ quote: 'long hike', body: 'too long?' })
  }, 90_000)

  it("one member's crafted flood of comments is taken only up to her rate by the others' sidecars", async () => {
    const { toy, alice, bob, carol, docId, groupId } = await sharedWithCommenter()
    const started = Date.now()
    // Under Carol's own client ids, so the author gate and the commenter check both let each through.
    const pageC = await connect(carol, docId)
    const note = await pageC.waitFor(
      (e) => e.kind === 'delivery' && decodeDeliveryNote(e.payload)?.author !== undefined,
    )
    const tag = decodeDeliveryNote(note.payload)?.author as number
    const anchorDoc = new Y.Doc()
    anchorDoc.getText('x').insert(0, 'ab')
    const rel = Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(anchorDoc.getText('x'), 0))
    // Small messages: a body fits Signal's 2 000 bytes, as a sidecar's own would.
    const PER_MESSAGE = 5
    const MESSAGES = 40
    for (let m = 0; m < MESSAGES; m++) {
      const forged = new Y.Doc()
      forged.clientID = clientIdFor(tag, 5000 + m) // one id a message: each applies on its own
      forged.transact(() => {
        for (let k = 0; k < PER_MESSAGE; k++)
          reviewMap(forged).set(`c:flood${String(m).padStart(2, '0')}${String(k).padStart(3, '0')}`, {
            v: 1,
            target: TARGET,
            anchor: { start: rel, end: rel },
            quote: 'x',
            body: 'spam',
            mentions: [],
            at: 1,
          })
      })
      const crafted = { ...envelope(docId, randomUUID(), 8), payload: Y.encodeStateAsUpdate(forged) }
      const body = encodeBody(encodeEnvelope(crafted))
      expect(body.length).toBeLessThan(2000)
      await rpc(toy.url, 'send', { account: CAROL, groupId, message: body })
    }
    for (const s of [alice, bob]) await poll(async () => (await metricValue(s.url, RATE_DROPS)) >= 1, 'the flood cut')

    // Bob's own comment still reaches Alice after the flood.
    const mine = await call(bob, 'POST', `/v1/docs/${docId}/comments`, {
      body: { index: 0, length: 5, body: 'ok', target: TARGET },
    })
    expect(mine.status).toBe(201)
    await poll(async () => (await threads(alice, docId)).some((t) => t.id === mine.json.id), "Bob's comment at Alice's")
    const minutes = (Date.now() - started) / 60_000
    const bound = ENTRY_RATE.burst + Math.ceil(ENTRY_RATE.perMinute * minutes)
    for (const s of [alice, bob]) {
      const flood = (await threads(s, docId)).filter((t) => t.body.startsWith('spam')).length
      expect(flood).toBeGreaterThan(0)
      expect(flood).toBeLessThanOrEqual(bound)
      expect(flood).toBeLessThan(PER_MESSAGE * MESSAGES)
    }
  }, 90_000)

  it('"@Bob" sends Bob exactly one urgent message from the writer\'s account; no sidecar that receives the comment sends one', async () => {
    const { toy, alice, bob, carol, docId, groupId } = await sharedWithCommenter()
    const direct = () => toy.sends().filter((s) => s.recipients !== undefined && s.groupId === undefined)
    const made = await call(alice, 'POST', `/v1/docs/${docId}/comments`, {
      body: {
        index: 22,
        length: 9,
        quote: 'long hike',
        body: '@Bob is this too long, @bob? @Dave? @Carol',
        target: TARGET,
      },
    })
    expect(made.status).toBe(201)
    expect(made.json.mentioned).toBe(2)
    await poll(async () => direct().length >= 2, 'the mention messages sent')
    // Sent independently: the daemon may take them in either order.
    const sent = direct().sort((a, b) => (a.recipients?.[0] ?? '').localeCompare(b.recipients?.[0] ?? ''))
    expect(sent.map((s) => [s.account, s.recipients, s.urgent])).toEqual([
      [ALICE, [BOB], true],
      [ALICE, [CAROL], true],
    ])
    expect(sent[0]?.message).toBe(
      'Mentioned you in “Trip plan”:\n“long hike”\n@Bob is this too long, @bob? @Dave? @Carol',
    )
    expect(sent[0]?.message).not.toContain(docId)
    expect(sent[0]?.message).not.toContain(groupId)

    // Carol, a commenter, replies mentioning Alice: one message from Carol's account to Alice.
    const reply = await call(carol, 'POST', `/v1/docs/${docId}/comments/${made.json.id as string}/replies`, {
      body: { body: 'yes @Alice' },
    })
    expect(reply.status).toBe(201)
    expect(reply.json.mentioned).toBe(1)
    await poll(async () => direct().length >= 3, "Carol's mention message sent")
    // Every sidecar lists both; none that received them sent anything because of them.
    for (const s of [alice, bob, carol])
      await poll(async () => (await threads(s, docId))[0]?.replies.length === 1, 'the thread everywhere')
    expect(
      direct()
        .map((s) => [s.account, s.recipients])
        .sort(),
    ).toEqual([
      [ALICE, [BOB]],
      [ALICE, [CAROL]],
      [CAROL, [ALICE]],
    ])
  }, 90_000)
})
