/**
 * What the demotion tests share (demotion.test.ts, demotion-commenter.test.ts): Alice's and Bob's
 * sidecars in processes of their own on the toy, "Trip plan" shared with Bob as an editor, and how
 * a page types into it and reads it.
 */
import { decodeDeliveryNote, type Envelope } from '@e2e-col/protocol'
import type { ToySignal } from '@e2e-col/toy-signal'
import { expect } from 'vitest'
import * as Y from 'yjs'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, call, libraryEnv } from './docs-api.ts'
import { connect, envelope, poll, type Client } from './harness.ts'

export type Person = { number: string; role?: string }
export type NotShared = {
  edits: { reason: string; text: string; role?: string; by?: string }[]
  demotion?: { role: string; by?: string }
  rejoinPending: boolean
  rejoinedAt?: number
}
export const VIEWER_DROPS = 'e2e_col_received_dropped_total{reason="viewer-content"}'
export const roleNote = (role: string) => (e: Envelope) =>
  e.kind === 'delivery' && decodeDeliveryNote(e.payload)?.role === role
export const IO_FAILURE = { code: -32603, message: 'Failed to send message: no network (IOException)' }

export const roleOf = async (s: { port: number }, docId: string, number: string): Promise<string | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as { docId: string; members: Person[] }[])
    .find((d) => d.docId === docId)
    ?.members.find((m) => m.number === number)?.role
export const notShared = async (s: { port: number }, docId: string): Promise<NotShared> =>
  (await call(s, 'GET', `/v1/docs/${docId}/not-shared`)).json as NotShared

/** A sidecar with the documents API in its own process; `env` kept so it can be started again. */
export async function libraryProcess(env: Record<string, string>) {
  const child = spawnSidecar(env)
  const url = await child.ready
  return { url, port: Number(new URL(url).port), child, env }
}

/** The document's text as a page that connects now is given it by the sidecar. */
export async function textOfFreshPage(s: { url: string }, docId: string): Promise<string> {
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
export function typed(docId: string, page: Client, doc: Y.Doc, at: number, text: string): Envelope {
  const before = Y.encodeStateVector(doc)
  doc.getText('t').insert(at, text)
  return envelope(docId, page.senderId, Y.encodeStateAsUpdate(doc, before))
}

export async function sharedWithBob(toy: ToySignal) {
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

/** Alice as Bob's sidecar lists her (told apart as everywhere: people/told-apart.ts). */
export async function shownOf(s: { port: number }, docId: string, number: string): Promise<string | undefined> {
  const docs = (await call(s, 'GET', '/v1/docs')).json.documents as {
    docId: string
    members: (Person & { shown?: string })[]
  }[]
  return docs.find((d) => d.docId === docId)?.members.find((m) => m.number === number)?.shown
}
