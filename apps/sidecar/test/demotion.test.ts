/**
 * A demotion overtakes an acknowledged, unsent edit (issue #37 item 2, decisions/0032), end to end
 * on the toy with each sidecar in a process of its own. Bob's edit is saved by his sidecar while
 * Signal refuses his sends; Alice makes him a viewer; his sidecar learns it and keeps the edit as
 * not shared (never sent: Alice's sidecar drops nothing of his), rebuilds his replica from Alice's
 * answer (his pages reconnect to the group's text), keeps the list across a restart, and made an
 * editor again his edits go through while the kept text stays readable.
 */
import { decodeDeliveryNote, type Envelope } from '@e2e-col/protocol'
import type { ToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, call, libraryEnv, startPeopleToy } from './docs-api.ts'
import { connect, envelope, isAck, metricValue, pageDoc, poll, type Client } from './harness.ts'

type Person = { number: string; role?: string }
type NotShared = { edits: { reason: string; text: string }[]; rejoinPending: boolean; rejoinedAt?: number }
const VIEWER_DROPS = 'e2e_col_received_dropped_total{reason="viewer-content"}'
const roleNote = (role: string) => (e: Envelope) =>
  e.kind === 'delivery' && decodeDeliveryNote(e.payload)?.role === role
const IO_FAILURE = { code: -32603, message: 'Failed to send message: no network (IOException)' }

const roleOf = async (s: { port: number }, docId: string, number: string): Promise<string | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as { docId: string; members: Person[] }[])
    .find((d) => d.docId === docId)
    ?.members.find((m) => m.number === number)?.role
const notShared = async (s: { port: number }, docId: string): Promise<NotShared> =>
  (await call(s, 'GET', `/v1/docs/${docId}/not-shared`)).json as NotShared

/** A sidecar with the documents API in its own process; `env` kept so it can be started again. */
async function libraryProcess(env: Record<string, string>) {
  const child = spawnSidecar(env)
  const url = await child.ready
  return { url, port: Number(new URL(url).port), child, env }
}

/** The document's text as a page that connects now is given it by the sidecar. */
async function textOfFreshPage(s: { url: string }, docId: string): Promise<string> {
  const page = await connect(s, docId)
  const doc = new Y.Doc()
  const ask = envelope(docId, page.senderId, Y.encodeStateVector(doc), 'sync-request')
  page.send(ask)
  const answer = await page.waitFor((e) => e.kind === 'sync-response')
  Y.applyUpdate(doc, answer.payload)
  page.ws.close()
  return doc.getText('t').toString()
}

/** A page's typed text as an update envelope, applied to its own doc first. */
function typed(docId: string, page: Client, doc: Y.Doc, at: number, text: string): Envelope {
  const before = Y.encodeStateVector(doc)
  doc.getText('t').insert(at, text)
  return envelope(docId, page.senderId, Y.encodeStateAsUpdate(doc, before))
}

async function sharedWithBob(toy: ToySignal) {
  const fast = { E2E_COL_MEMBERS_REFRESH_MS: '1000', E2E_COL_OFFLINE_PROBE_MAX_MS: '200' }
  const [alice, bob] = await Promise.all([
    libraryProcess(libraryEnv(toy, ALICE, fast)),
    libraryProcess(libraryEnv(toy, BOB, fast)),
  ])
  const created = await call(alice, 'POST', '/v1/docs', { body: { title: 'Trip plan', members: [BOB] } })
  expect(created.status).toBe(201)
  const { docId } = created.json as { docId: string }
  await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 1, 'the invitation')
  expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
  await poll(async () => (await roleOf(bob, docId, BOB)) === 'editor', 'Bob an editor in his sidecar')
  return { alice, bob, docId }
}

describe('a demotion that overtakes an unsent edit', () => {
  it("keeps Bob's unsent edit as not shared, never sends it, rebuilds his replica from the group's, across a restart and a promotion", async () => {
    const toy = await startPeopleToy()
    const { alice, bob, docId } = await sharedWithBob(toy)
    const [pageA, pageB] = await Promise.all([connect(alice, docId), connect(bob, docId)])
    const [docA, docB] = await Promise.all([pageDoc(pageA), pageDoc(pageB)])

    // Alice's text reaches Bob's page.
    const hello = typed(docId, pageA, docA, 0, 'Hello')
    pageA.send(hello)
    const got = await pageB.waitFor((e) => e.kind === 'update' && e.messageId === hello.messageId)
    Y.applyUpdate(docB, got.payload)

    // Bob's sends fail (no network): his edit is saved by his sidecar, not sent.
    toy.faults.failNextSendsWith(100_000, IO_FAILURE, { from: BOB })
    const bobs = typed(docId, pageB, docB, 5, ' from Bob')
    pageB.send(bobs)
    await pageB.waitFor(isAck(bobs.messageId))

    // Alice makes Bob a viewer; his sidecar learns it and keeps the edit as not shared.
    const path = `/v1/docs/${docId}/members/${encodeURIComponent(BOB)}`
    expect((await call(alice, 'PATCH', path, { body: { role: 'viewer' } })).status).toBe(200)
    await pageB.waitFor(roleNote('viewer'))
    await poll(async () => (await notShared(bob, docId)).edits.length > 0, 'the edit listed as not shared')
    expect((await notShared(bob, docId)).edits).toEqual([
      expect.objectContaining({ reason: 'unsent', text: ' from Bob' }),
    ])

    // Signal takes Bob's sends again: the edit is never sent (Alice's sidecar drops nothing of
    // his), and his replica rejoins Alice's state from her answer; his page is disconnected.
    toy.faults.reset()
    await poll(
      async () => (await notShared(bob, docId)).rejoinedAt !== undefined,
      "Bob's replica rebuilt from the group's",
    )
    await pageB.closed
    expect(await textOfFreshPage(bob, docId)).toBe('Hello')
    expect(await textOfFreshPage(alice, docId)).toBe('Hello')
    expect(await metricValue(alice.url, VIEWER_DROPS)).toBe(0)
    expect(pageA.received.some((e) => e.messageId === bobs.messageId)).toBe(false)
    const settled = await notShared(bob, docId)
    expect(settled).toMatchObject({ rejoinPending: false, edits: [{ reason: 'unsent', text: ' from Bob' }] })

    // A restart keeps the list, and the edit is still never sent.
    bob.child.child.kill('SIGKILL')
    await bob.child.exited
    const bob2 = await libraryProcess(bob.env)
    await poll(async () => (await roleOf(bob2, docId, BOB)) === 'viewer', 'Bob a viewer after the restart')
    expect((await notShared(bob2, docId)).edits).toEqual(settled.edits)
    expect(await textOfFreshPage(bob2, docId)).toBe('Hello')

    // Made an editor again: the kept text stays readable, his new edit reaches Alice, the old one does not.
    expect((await call(alice, 'PATCH', path, { body: { role: 'editor' } })).status).toBe(200)
    const pageB2 = await connect(bob2, docId)
    await pageB2.waitFor(roleNote('editor'))
    const docB2 = await pageDoc(pageB2)
    const ask = envelope(docId, pageB2.senderId, Y.encodeStateVector(docB2), 'sync-request')
    pageB2.send(ask)
    Y.applyUpdate(docB2, (await pageB2.waitFor((e) => e.kind === 'sync-response')).payload)
    const again = typed(docId, pageB2, docB2, 5, ' again')
    pageB2.send(again)
    await pageA.waitFor((e) => e.kind === 'update' && e.messageId === again.messageId)
    await poll(async () => (await textOfFreshPage(alice, docId)) === 'Hello again', "Bob's new edit at Alice's")
    expect((await notShared(bob2, docId)).edits).toEqual(settled.edits)
    expect(await metricValue(alice.url, VIEWER_DROPS)).toBe(0)
  }, 90_000)
})
