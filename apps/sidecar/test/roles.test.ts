/**
 * Editors and viewers of a document, end to end on the toy with three sidecars: Alice makes Carol
 * a viewer; Carol's crafted update, sent straight to the group through the daemon as a hostile
 * member would, is dropped by Alice's and Bob's sidecars; Carol's page is told it is a viewer and
 * an edit through her sidecar is refused with SIDECAR_READ_ONLY; Carol still receives edits. Each
 * sidecar runs in a process of its own, as people run it.
 */
import { decodeDeliveryNote, encodeBody, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { parseDocsArgs, runDocsCommand } from '../src/cli/docs-cli.ts'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, CAROL, call, libraryEnv, rpc, shareAndAccept, startPeopleToy } from './docs-api.ts'
import { connect, envelope, isAck, isMessage, metricValue, poll } from './harness.ts'

type Person = { number: string; role?: string }
const roleOf = async (s: { port: number }, docId: string, number: string): Promise<string | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as { docId: string; members: Person[] }[])
    .find((d) => d.docId === docId)
    ?.members.find((m) => m.number === number)?.role

const roleNote = (role: string) => (e: Envelope) =>
  e.kind === 'delivery' && decodeDeliveryNote(e.payload)?.role === role
const refusedWith = (code: string, messageId: string) => (e: Envelope) =>
  e.kind === 'error' && e.messageId === messageId && new TextDecoder().decode(e.payload).includes(code)
const VIEWER_DROPS = 'e2e_col_received_dropped_total{reason="viewer-content"}'

/** `e2e-col docs …` against a sidecar. */
function cli(s: { url: string }, argv: string[]): Promise<string> {
  const r = parseDocsArgs([...argv, '--sidecar', s.url], {})
  if (r.kind !== 'docs') throw new Error(`not a command: ${JSON.stringify(r)}`)
  return runDocsCommand(r.command)
}

/** A sidecar with the documents API in its own process (killed when the test ends). */
async function libraryProcess(toy: ToySignal, account: string, extra: Record<string, string>) {
  const url = await spawnSidecar(libraryEnv(toy, account, extra)).ready
  return { url, port: Number(new URL(url).port) }
}

/** Three sidecars; Alice makes "Trip plan" with Bob (an editor) and Carol (`carolRole`); both accept. */
async function sharedByAlice(toy: ToySignal, carolRole: 'editor' | 'viewer') {
  const fast = { E2E_COL_MEMBERS_REFRESH_MS: '1000' }
  const [alice, bob, carol] = await Promise.all([
    libraryProcess(toy, ALICE, fast),
    libraryProcess(toy, BOB, fast),
    libraryProcess(toy, CAROL, fast),
  ])
  const { docId, groupId } = await shareAndAccept(
    alice,
    { title: 'Trip plan', members: [BOB, { number: CAROL, role: carolRole }] },
    [bob, carol],
  )
  return { alice, bob, carol, docId, groupId }
}

describe('document roles', () => {
  it("a viewer's content is dropped by every editor's sidecar, its page refused, and it still receives edits", async () => {
    const toy = await createToySignal({
      accounts: [ALICE, BOB, CAROL],
      names: { [ALICE]: 'Alice', [BOB]: 'Bob', [CAROL]: 'Carol' },
      faults: true,
      keepAliveMs: 1000,
    })
    onTestFinished(() => toy.close())
    const { alice, bob, carol, docId, groupId } = await sharedByAlice(toy, 'editor')
    expect(await roleOf(alice, docId, CAROL)).toBe('editor')
    expect(await roleOf(alice, docId, ALICE)).toBe('editor')

    // Only an editor changes roles; a bad role and an unknown member are told apart.
    const path = `/v1/docs/${docId}/members/${encodeURIComponent(CAROL)}`
    expect((await call(alice, 'PATCH', path, { body: { role: 'owner' } })).status).toBe(400)
    const stranger = await call(alice, 'PATCH', `/v1/docs/${docId}/members/%2B15555550199`, {
      body: { role: 'viewer' },
    })
    expect([stranger.status, stranger.json.error.code]).toEqual([404, 'DOCS_UNKNOWN_MEMBER'])
    const made = await call(alice, 'PATCH', path, { body: { role: 'viewer' } })
    expect(made.status).toBe(200)
    expect(made.json.members.find((m: Person) => m.number === CAROL).role).toBe('viewer')
    await poll(async () => (await roleOf(carol, docId, CAROL)) === 'viewer', "Carol's sidecar sees her role")
    const refusedChange = await call(carol, 'PATCH', `/v1/docs/${docId}/members/${encodeURIComponent(BOB)}`, {
      body: { role: 'viewer' },
    })
    expect([refusedChange.status, refusedChange.json.error.code]).toEqual([403, 'DOCS_NOT_EDITOR'])
    await poll(async () => (await roleOf(bob, docId, CAROL)) === 'viewer', "Bob's sidecar sees Carol's role")

    const [pageA, pageB, pageC] = await Promise.all([connect(alice, docId), connect(bob, docId), connect(carol, docId)])
    await pageC.waitFor(roleNote('viewer'))
    await pageA.waitFor(roleNote('editor'))

    // A hostile viewer sends an update straight to the group, past its own sidecar.
    const crafted = envelope(docId, randomUUID(), 40)
    await rpc(toy.url, 'send', { account: CAROL, groupId, message: encodeBody(encodeEnvelope(crafted)) })
    for (const s of [alice, bob])
      await poll(async () => (await metricValue(s.url, VIEWER_DROPS)) >= 1, "the viewer's update dropped")
    expect(pageA.received.some(isMessage(crafted.messageId))).toBe(false)
    expect(pageB.received.some(isMessage(crafted.messageId))).toBe(false)

    // Carol's page edits through her sidecar: refused with the stable code, never acknowledged.
    const attempt = envelope(docId, pageC.senderId, 40)
    pageC.send(attempt)
    await pageC.waitFor(refusedWith('SIDECAR_READ_ONLY', attempt.messageId))
    expect(pageC.received.some(isAck(attempt.messageId))).toBe(false)

    // Editors' edits still reach the viewer.
    const edit = envelope(docId, pageA.senderId, 40)
    pageA.send(edit)
    await pageC.waitFor(isMessage(edit.messageId))
    await pageB.waitFor(isMessage(edit.messageId))
    expect(pageB.received.some(isMessage(attempt.messageId))).toBe(false)

    // Made an editor again, Carol's page is told at once and her edits go through.
    expect((await call(alice, 'PATCH', path, { body: { role: 'editor' } })).status).toBe(200)
    await pageC.waitFor(roleNote('editor'))
    const after = envelope(docId, pageC.senderId, 40)
    pageC.send(after)
    await pageA.waitFor(isMessage(after.messageId))
  }, 60_000)

  it('an editor invited before Signal lets them in is made an editor once they join; a viewer stays a viewer', async () => {
    // With pending invites the toy lets Bob and Carol in only when they accept: Signal makes
    // admins of members only, so Alice's sidecar promotes Bob when he joins.
    const toy = await startPeopleToy()
    const { alice, bob, carol, docId } = await sharedByAlice(toy, 'viewer')
    await poll(async () => (await roleOf(alice, docId, BOB)) === 'editor', 'Bob made an editor once he joined')
    expect(await roleOf(alice, docId, CAROL)).toBe('viewer')
    expect(await roleOf(bob, docId, BOB)).toBe('editor')

    // The CLI shows and sets roles: Bob (an editor now) makes Carol an editor by the title.
    expect(await cli(carol, ['list'])).toContain('you can view')
    expect(await cli(bob, ['list'])).toMatch(/Carol \(\+15555550103\) \[not in your contacts\] \[can view\]/)
    expect(await cli(bob, ['role', 'Trip plan', CAROL, 'editor'])).toBe(`${CAROL} can edit\n`)
    const listed = JSON.parse(await cli(alice, ['list', '--json'])) as { documents: { members: Person[] }[] }
    expect(listed.documents[0]?.members.map((m) => [m.number, m.role])).toEqual(
      expect.arrayContaining([
        [ALICE, 'editor'],
        [BOB, 'editor'],
        [CAROL, 'editor'],
      ]),
    )
    const refused = await cli(alice, ['role', 'Trip plan', '+15555550199', 'viewer']).catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: 'DOCS_UNKNOWN_MEMBER', exitCode: 1 })
  }, 60_000)
})
