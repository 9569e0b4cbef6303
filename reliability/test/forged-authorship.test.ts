/**
 * Authorship against a hostile member (decisions/0023): Yjs client ids carry their account's author
 * tag, so no member can take another's. Account C posts, through the daemon's own `send` as any
 * member could, announcements and updates under the client id of Alice's page, and presence for
 * it. Sidecars for Alice (A), Bob (B) and, later, Dave (D), each in a process of its own, strip and
 * count what C wrote under Alice's id, credit Alice's text to Alice (verified), and keep Alice's
 * presence as hers. A page before 0023 (a legacy client id) keeps the first-seen binding, shown
 * unverified. A flood of announcements leaves B's /healthz answering.
 */
import {
  decodeBody,
  decodeEnvelope,
  decodeHealth,
  encodeBody,
  encodeEnvelope,
  encodeHealth,
  type Envelope,
} from '@e2e-col/protocol'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as Y from 'yjs'
import {
  A,
  B,
  C,
  D,
  authorTagOf,
  envelopeOf,
  firstPresence,
  metric,
  pageIdOf,
  postAs,
  presenceUnder,
  reader,
  rpcAs,
  sidecarEnv,
  stateUnder,
  toyWithThree,
  waitFor,
  wsUrl,
} from './edge.ts'
import { SidecarNode } from '../src/sidecar-node.ts'

/** A sidecar in a process of its own, as people run it (killed when the test ends). */
async function sidecarProcess(env: Record<string, string>): Promise<SidecarNode> {
  const node = new SidecarNode(env, 'child')
  await node.start()
  onTestFinished(() => node.stop())
  return node
}

const FORGED = 'e2e_col_received_dropped_total{reason="forged-author"}'
const CLAIMS = 'e2e_col_received_dropped_total{reason="author-claim-refused"}'
const PRESENCE = 'e2e_col_received_dropped_total{reason="presence-not-author"}'
const VIEWER = 'e2e_col_received_dropped_total{reason="viewer-content"}'
const LEGACY_ALICE_PAGE = 0x5eed_a11c
const ALICE_PAGE = pageIdOf(authorTagOf(A), 0x0a11c)
const C_PAGE = pageIdOf(authorTagOf(C), 0x0c0ff)

/** A document writing under `clientId`, as a page's is. */
const docOf = (clientId: number): Y.Doc => Object.assign(new Y.Doc(), { clientID: clientId })

/** Appends `text` to `doc` and answers the update that made (what a page sends). */
function typeInto(doc: Y.Doc, text: string): Uint8Array {
  const sv = Y.encodeStateVector(doc)
  const t = doc.getText('t')
  t.insert(t.length, text)
  return Y.encodeStateAsUpdate(doc, sv)
}

/** An update under `clientId` whose first struct sits at `clock` (C fills the clocks below itself). */
function written(clientId: number, clock: number, text: string): Uint8Array {
  const doc = docOf(clientId)
  if (clock > 0) typeInto(doc, '#'.repeat(clock))
  return typeInto(doc, text)
}

/** The text a page holds after applying every update its sidecar sent it. */
function textOf(received: readonly Envelope[]): string {
  const doc = new Y.Doc()
  for (const e of received) if (e.kind === 'update' || e.kind === 'sync-response') Y.applyUpdate(doc, e.payload)
  return doc.getText('t').toString()
}

const has = (list: readonly Envelope[], id: string) => list.some((e) => e.messageId === id)

type AuthorView = { number?: string; name?: string | null; verified: boolean; relayedBy?: { number: string } }

/** Number → shown name of the document's members, as the sidecar's home page lists them. */
async function shownAt(s: { url: string }, docId: string): Promise<Map<string, string>> {
  const res = await fetch(`${s.url}/v1/docs`)
  const { documents } = (await res.json()) as {
    documents: { docId: string; members: { number: string; shown: string }[] }[]
  }
  return new Map((documents.find((d) => d.docId === docId)?.members ?? []).map((m) => [m.number, m.shown]))
}
async function authorsAt(s: { url: string }, docId: string): Promise<Record<string, AuthorView>> {
  const res = await fetch(`${s.url}/v1/docs/${docId}/authors`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { authors: Record<string, AuthorView> }).authors
}

/** C posts `payload` to the group as an envelope of `kind`, as any member could. */
async function asC(
  toy: Awaited<ReturnType<typeof toyWithThree>>,
  docId: string,
  kind: Envelope['kind'],
  payload: Uint8Array,
) {
  const env = envelopeOf(docId, randomUUID(), payload, kind)
  await postAs(toy, C, encodeBody(encodeEnvelope(env)))
  return env
}

/** A and B on one document, each in its own process, with a page at each. */
async function aliceAndBob(toyOptions: Parameters<typeof toyWithThree>[0] = {}, extra: Record<string, string> = {}) {
  const toy = await toyWithThree(toyOptions)
  const docId = randomUUID()
  const sa = await sidecarProcess(sidecarEnv(toy, A, docId, extra))
  const sb = await sidecarProcess(sidecarEnv(toy, B, docId, extra))
  const alice = await reader(wsUrl(sa, docId))
  const bob = await reader(wsUrl(sb, docId))
  return { toy, docId, sa, sb, alice, bob }
}

/** The 64 ids of C's `round`th announcement: C's own, new each time. */
const idsOfC = (round: number) => Array.from({ length: 64 }, (_, i) => pageIdOf(authorTagOf(C), round * 64 + i))

/** C squats Alice's page id before she types: announces it, and writes under it at her first clocks. */
async function squat(toy: Awaited<ReturnType<typeof toyWithThree>>, docId: string, clientId: number) {
  await asC(toy, docId, 'health', encodeHealth({ authors: [clientId] }))
  return asC(toy, docId, 'update', written(clientId, 0, 'squatted by C'))
}

describe("a member cannot take another member's Yjs client id", () => {
  it("C announcing and writing under Alice's page id before she types gains nothing: her edit reaches Bob, hers and verified", async () => {
    // C calls itself Alice too: the authors answer names people as told apart everywhere.
    const { toy, docId, sa, sb, alice, bob } = await aliceAndBob({ names: { [A]: 'Alice', [C]: 'Alice' } })
    const squatted = await squat(toy, docId, ALICE_PAGE)
    // C's own writing, after the squat, shows the group delivered everything before it.
    const own = await asC(toy, docId, 'update', typeInto(docOf(C_PAGE), 'C here'))
    await waitFor("C's own update at Bob's page", () => has(bob.received, own.messageId))
    for (const s of [sa, sb]) {
      expect(await metric(s, FORGED)).toBe(1)
      expect(await metric(s, CLAIMS)).toBe(1)
    }
    expect(has(bob.received, squatted.messageId)).toBe(false)

    const page = docOf(ALICE_PAGE)
    const edit = envelopeOf(docId, randomUUID(), typeInto(page, 'hello'))
    alice.ws.send(encodeEnvelope(edit))
    await waitFor("Alice's edit at Bob's page", () => has(bob.received, edit.messageId))
    expect(textOf(bob.received)).toMatch(/^(helloC here|C herehello)$/)
    const authors = await authorsAt(sb, docId)
    expect(authors[String(ALICE_PAGE)]).toMatchObject({ number: A, verified: true })
    expect(authors[String(C_PAGE)]).toMatchObject({ number: C, verified: true })
    const shown = await shownAt(sb, docId)
    expect(authors[String(ALICE_PAGE)]?.name).toBe(shown.get(A))
    expect(authors[String(C_PAGE)]?.name).toBe(shown.get(C))
    expect(shown.get(C)).not.toBe('Alice')
  })

  it('a member added later, whom C tells first, credits Alice once her own announcement arrives', async () => {
    const { toy, docId, sb, alice, bob } = await aliceAndBob()
    const page = docOf(ALICE_PAGE)
    const pageSender = randomUUID() // a connection keeps one sender id
    const edit = envelopeOf(docId, pageSender, typeInto(page, 'hello'))
    alice.ws.send(encodeEnvelope(edit))
    await waitFor("Alice's edit at Bob's page", () => has(bob.received, edit.messageId))

    // Dave joins; his sidecar asks the group for the document at start.
    await rpcAs(toy, A, 'updateGroup', { groupId: toy.groups[0]?.id, members: [D] })
    const sd = await sidecarProcess(sidecarEnv(toy, D, docId, { E2E_COL_SYNC_ON_START: '1' }))
    const dave = await reader(wsUrl(sd, docId))
    // C, first to speak to Dave, claims Alice's id and writes at her next clock.
    await asC(toy, docId, 'health', encodeHealth({ authors: [ALICE_PAGE] }))
    await asC(toy, docId, 'update', written(ALICE_PAGE, 5, ' (squatted by C)'))
    await waitFor("Alice's text at Dave's page", () => textOf(dave.received) === 'hello')
    await waitFor("C's squat counted at Dave's sidecar", async () => (await metric(sd, FORGED)) === 1)
    expect(await metric(sd, CLAIMS)).toBe(1)
    // Alice's sidecar answers Dave's hello naming its pages' ids: Alice's text is hers, verified.
    await waitFor(
      'Alice credited at Dave',
      async () => (await authorsAt(sd, docId))[String(ALICE_PAGE)]?.verified === true,
    )
    expect((await authorsAt(sd, docId))[String(ALICE_PAGE)]).toMatchObject({ number: A, verified: true })

    const next = envelopeOf(docId, pageSender, typeInto(page, ' world'))
    alice.ws.send(encodeEnvelope(next))
    await waitFor("Alice's next edit at Dave's page", () => textOf(dave.received) === 'hello world')
    // Bob's sidecar receives it in its own time: waited for, not assumed to be there with Dave's.
    await waitFor("Alice's next edit at Bob's page", () => textOf(bob.received) === 'hello world')
    expect((await authorsAt(sb, docId))[String(ALICE_PAGE)]).toMatchObject({ number: A, verified: true })
  })

  it("a viewer squatting Alice's page id changes nothing: its claim refused, its writing dropped", async () => {
    const toy = await toyWithThree()
    // Roles on: Alice and Bob are admins (editors), Carol a viewer.
    await rpcAs(toy, A, 'updateGroup', {
      groupId: toy.groups[0]?.id,
      admin: [B],
      setPermissionEditDetails: 'only-admins',
    })
    const docId = randomUUID()
    const sa = await sidecarProcess(sidecarEnv(toy, A, docId))
    const sb = await sidecarProcess(sidecarEnv(toy, B, docId))
    const alice = await reader(wsUrl(sa, docId))
    const bob = await reader(wsUrl(sb, docId))
    await squat(toy, docId, ALICE_PAGE)
    // A viewer's announcement naming a legacy id binds nothing either.
    await asC(toy, docId, 'health', encodeHealth({ authors: [LEGACY_ALICE_PAGE] }))
    // A viewer's presence still passes (its own id): it shows the group delivered everything before it.
    await asC(toy, docId, 'awareness', presenceUnder(C_PAGE, 1))
    await waitFor("C's presence at Bob's page", () =>
      bob.received.some((e) => e.kind === 'awareness' && firstPresence(e.payload)?.clientId === C_PAGE),
    )
    expect(await metric(sb, VIEWER)).toBe(1)
    expect(await metric(sb, CLAIMS)).toBe(2)

    const page = docOf(ALICE_PAGE)
    const edit = envelopeOf(docId, randomUUID(), typeInto(page, 'hello'))
    alice.ws.send(encodeEnvelope(edit))
    await waitFor("Alice's edit at Bob's page", () => has(bob.received, edit.messageId))
    expect(textOf(bob.received)).toBe('hello')
    const authors = await authorsAt(sb, docId)
    expect(authors[String(ALICE_PAGE)]).toMatchObject({ number: A, verified: true })
    expect(authors[String(LEGACY_ALICE_PAGE)]).toBeUndefined()
  })

  it("C's removal and move of Alice's presence are ignored at Bob's sidecar", async () => {
    const { toy, docId, sb, alice, bob } = await aliceAndBob()
    const presence = envelopeOf(docId, randomUUID(), presenceUnder(ALICE_PAGE, 1), 'awareness')
    alice.ws.send(encodeEnvelope(presence))
    const aliceAt = (clock: number) => (e: Envelope) =>
      e.kind === 'awareness' &&
      firstPresence(e.payload)?.clientId === ALICE_PAGE &&
      firstPresence(e.payload)?.clock === clock
    await waitFor("Alice's presence at Bob's page", () => bob.received.some(aliceAt(1)))
    // C removes it (a null state at a later clock), then moves it (a new state, renamed).
    await asC(toy, docId, 'awareness', stateUnder(ALICE_PAGE, 3, { user: { name: 'Alice' }, cursor: 'moved by C' }))
    await asC(toy, docId, 'awareness', stateUnder(ALICE_PAGE, 4, null))
    // C's own presence after: the group delivered the two before it.
    await asC(toy, docId, 'awareness', presenceUnder(C_PAGE, 1))
    await waitFor("C's presence at Bob's page", () =>
      bob.received.some((e) => e.kind === 'awareness' && firstPresence(e.payload)?.clientId === C_PAGE),
    )
    expect(await metric(sb, PRESENCE)).toBe(2)
    expect(bob.received.some(aliceAt(3)) || bob.received.some(aliceAt(4))).toBe(false)
  })

  it("100 announcements of 64 new ids from C are all taken while Bob's /healthz keeps answering", async () => {
    const { toy, docId, sb } = await aliceAndBob()
    const flood = { on: true }
    const answers: number[] = []
    const probe = (async () => {
      while (flood.on) {
        answers.push((await fetch(`${sb.url}/healthz`)).status)
        await new Promise((r) => setTimeout(r, 20))
      }
    })()
    for (let round = 0; round < 100; round += 1)
      await asC(toy, docId, 'health', encodeHealth({ authors: idsOfC(round) }))
    const last = String(idsOfC(99)[63])
    await waitFor(
      'the last announcement taken at Bob',
      async () => (await authorsAt(sb, docId))[last] !== undefined,
      60_000,
    )
    const duringFlood = answers.length
    flood.on = false
    await probe
    expect(duringFlood).toBeGreaterThan(0)
    expect(answers.every((s) => s === 200)).toBe(true)
    // Bounded per account: C's newest 512 ids stand, verified as C's.
    const authors = await authorsAt(sb, docId)
    const cs = Object.values(authors).filter((a) => a.number === C)
    expect(cs).toHaveLength(512)
    expect(authors[last]).toMatchObject({ number: C, verified: true })
    expect(await metric(sb, CLAIMS)).toBe(0)
  })

  it("a page before 0023 (a legacy id) keeps the first-seen binding: C's forgeries under it dropped, shown unverified", async () => {
    const { toy, docId, sa, sb, alice, bob } = await aliceAndBob()
    const aliceOther = await reader(wsUrl(sa, docId))
    const page = docOf(LEGACY_ALICE_PAGE)
    const pageSender = randomUUID() // a connection keeps one sender id

    const first = envelopeOf(docId, pageSender, typeInto(page, 'hello'))
    alice.ws.send(encodeEnvelope(first))
    await waitFor("Alice's first edit at Bob's page", () => has(bob.received, first.messageId))
    // A announces its page's client id to the group, in a health record Signal authenticates as A's.
    await waitFor("A's announcement of its page's client id", () =>
      toy
        .sends()
        .filter((s) => s.account === A)
        .map((s) => decodeEnvelope(decodeBody(s.message)))
        .some((e) => e.kind === 'health' && (decodeHealth(e.payload).authors ?? []).includes(LEGACY_ALICE_PAGE)),
    )

    // C writes under Alice's client id: once far ahead, once exactly at her next clock.
    const forged = await asC(toy, docId, 'update', written(LEGACY_ALICE_PAGE, 40, ' (forged by C)'))
    const squatted = await asC(toy, docId, 'update', written(LEGACY_ALICE_PAGE, 5, ' (squatted by C)'))
    const own = await asC(toy, docId, 'update', typeInto(docOf(0xc0ffee), 'C here'))
    await waitFor("C's own update at Bob's page", () => has(bob.received, own.messageId))
    await waitFor("C's own update at Alice's other page", () => has(aliceOther.received, own.messageId))
    for (const s of [sa, sb]) expect(await metric(s, FORGED)).toBe(2)
    for (const list of [bob.received, aliceOther.received])
      for (const env of [forged, squatted]) expect(has(list, env.messageId)).toBe(false)

    const next = envelopeOf(docId, pageSender, typeInto(page, ' world'))
    alice.ws.send(encodeEnvelope(next))
    await waitFor("Alice's next edit at Bob's page", () => has(bob.received, next.messageId))
    expect(textOf(bob.received)).toMatch(/^(hello worldC here|C herehello world)$/)
    expect(textOf(bob.received)).not.toContain('C)')
    // Nothing but arrival ties a legacy id to its account: unverified, named by who wrote it first.
    const authors = await authorsAt(sb, docId)
    expect(authors[String(LEGACY_ALICE_PAGE)]).toMatchObject({ verified: false, relayedBy: { number: A } })
    expect(authors[String(0xc0ffee)]).toMatchObject({ verified: false, relayedBy: { number: C } })
  })
})
