/**
 * The commenter role end to end on the toy, each sidecar in a process of its own: Alice shares
 * "Trip plan" with Bob (an editor) and Carol (a commenter). Carol's suggestion, made through her
 * sidecar, reaches Alice's and Bob's; her accept is 403; her page's content edit is refused; and a
 * content update crafted under her own client id and sent straight to the group, past her sidecar,
 * is dropped by Alice's and Bob's sidecars (their text unchanged, the drop counted).
 */
import { decodeDeliveryNote, clientIdFor, encodeBody, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import * as Y from 'yjs'
import { describe, expect, it, onTestFinished } from 'vitest'
import { parseDocsArgs, runDocsCommand } from '../src/cli/docs-cli.ts'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, CAROL, call, libraryEnv, rpc, shareAndAccept } from './docs-api.ts'
import { connect, envelope, isAck, metricValue, poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

type Person = { number: string; role?: string }
type Peer = { url: string; port: number }
const TEXT = '?target=t&kind=text'
const COMMENTER_DROPS = 'e2e_col_received_dropped_total{reason="commenter-content"}'

const roleOf = async (s: Peer, docId: string, number: string): Promise<string | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as { docId: string; members: Person[] }[])
    .find((d) => d.docId === docId)
    ?.members.find((m) => m.number === number)?.role
const refusedWith = (code: string, messageId: string) => (e: Envelope) =>
  e.kind === 'error' && e.messageId === messageId && new TextDecoder().decode(e.payload).includes(code)
const textOf = async (s: Peer, docId: string): Promise<string> =>
  (await call(s, 'GET', `/v1/docs/${docId}/text${TEXT}`)).json.text as string

async function libraryProcess(toy: ToySignal, account: string): Promise<Peer> {
  const url = await spawnSidecar(libraryEnv(toy, account, { E2E_COL_MEMBERS_REFRESH_MS: '1000' })).ready
  return { url, port: Number(new URL(url).port) }
}

/** `e2e-col docs …` against a sidecar. */
function cli(s: { url: string }, argv: string[]): Promise<string> {
  const r = parseDocsArgs([...argv, '--sidecar', s.url], {})
  if (r.kind !== 'docs') throw new Error(`not a command: ${JSON.stringify(r)}`)
  return runDocsCommand(r.command)
}

/** Alice makes "Trip plan" with Bob (editor) and Carol (commenter); both accept; every sidecar knows Carol's role. */
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
  for (const s of [alice, bob, carol])
    await poll(async () => (await roleOf(s, docId, CAROL)) === 'commenter', 'every sidecar sees Carol comment')
  return { toy, alice, bob, carol, docId, groupId }
}

describe('the commenter role', () => {
  it("a commenter's suggestion reaches everyone; her accept is 403; her page's content edit is refused", async () => {
    const { alice, bob, carol, docId } = await sharedWithCommenter()
    expect(await roleOf(alice, docId, BOB)).toBe('editor')
    expect(await cli(carol, ['list'])).toContain('you can comment')
    const page = await pageOn(docId, alice.url)
    page.edit('Day 2: long hike and a picnic.')
    await poll(async () => (await textOf(carol, docId)) === 'Day 2: long hike and a picnic.', 'Carol holds the text')

    const read = await call(carol, 'GET', `/v1/docs/${docId}/text${TEXT}`)
    const made = await call(carol, 'POST', `/v1/docs/${docId}/suggestions`, {
      body: { base: read.json.base, find: 'long hike and a ', replace: '', target: { name: 't', kind: 'text' } },
    })
    expect(made.status).toBe(201)
    const id = made.json.id as string
    for (const s of [alice, bob])
      await poll(
        async () =>
          (await call(s, 'GET', `/v1/docs/${docId}/suggestions`)).json.suggestions.some(
            (x: { id: string }) => x.id === id,
          ),
        'the suggestion reaches an editor',
      )
    const accept = await call(carol, 'POST', `/v1/docs/${docId}/suggestions/${id}/accept`, { body: {} })
    expect([accept.status, accept.json.error.code]).toEqual([403, 'REVIEW_COMMENTER_CANNOT_DECIDE'])
    expect((await call(bob, 'POST', `/v1/docs/${docId}/suggestions/${id}/accept`, { body: {} })).status).toBe(200)
    for (const s of [alice, bob, carol])
      await poll(async () => (await textOf(s, docId)) === 'Day 2: picnic.', 'the accepted text everywhere')

    // Carol's page types into the text: refused whole, never acknowledged, nowhere else.
    const pageC = await connect(carol, docId)
    const attempt = envelope(docId, pageC.senderId, 40)
    pageC.send(attempt)
    await pageC.waitFor(refusedWith('SIDECAR_READ_ONLY', attempt.messageId))
    expect(pageC.received.some(isAck(attempt.messageId))).toBe(false)
    expect(await textOf(carol, docId)).toBe('Day 2: picnic.')
  }, 90_000)

  it("a commenter's crafted content edit is dropped by every sidecar", async () => {
    const { toy, alice, bob, carol, docId, groupId } = await sharedWithCommenter()
    const page = await pageOn(docId, alice.url)
    page.edit('Day 1: museum.')
    for (const s of [bob, carol]) await poll(async () => (await textOf(s, docId)) === 'Day 1: museum.', 'the text')

    // Under Carol's own client id, so the author gate lets it through: only the commenter check stands.
    const pageC = await connect(carol, docId)
    const note = await pageC.waitFor(
      (e) => e.kind === 'delivery' && decodeDeliveryNote(e.payload)?.author !== undefined,
    )
    const tag = decodeDeliveryNote(note.payload)?.author as number
    const forged = new Y.Doc()
    forged.clientID = clientIdFor(tag, 4242)
    forged.getText('t').insert(0, 'HACKED ')
    const crafted = { ...envelope(docId, randomUUID(), 8), payload: Y.encodeStateAsUpdate(forged) }
    await rpc(toy.url, 'send', { account: CAROL, groupId, message: encodeBody(encodeEnvelope(crafted)) })
    for (const s of [alice, bob])
      await poll(async () => (await metricValue(s.url, COMMENTER_DROPS)) >= 1, "the commenter's update dropped")
    // A later edit arrives after it: had the crafted update been applied, it would show by now.
    page.edit(' Day 2: picnic.')
    for (const s of [alice, bob]) await poll(async () => (await textOf(s, docId)).endsWith('picnic.'), 'the later edit')
    for (const s of [alice, bob]) expect(await textOf(s, docId)).toBe('Day 1: museum. Day 2: picnic.')
  }, 90_000)
})
