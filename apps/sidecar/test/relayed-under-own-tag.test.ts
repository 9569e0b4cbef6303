/**
 * Content a member relays under another account's author tag stays "relayed by" that member, even
 * when Yjs keeps part of it waiting for a missing piece and the owner's sidecar then edits the
 * document itself (a comment through the review API). Each sidecar runs in a process of its own on
 * the toy: Bob, hostile, sends a crafted `sync-response` with structs under Alice's tag and a gap
 * in them; Alice comments; Carol must not learn Bob's structs as Alice's, and neither must Alice.
 */
import { clientIdFor, encodeBody, encodeEnvelope } from '@e2e-col/protocol'
import { createToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import * as Y from 'yjs'
import { describe, expect, it, onTestFinished } from 'vitest'
import { authorTagOfAccount } from '../src/authorship/author-tag.ts'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, CAROL, call, libraryEnv, rpc, shareAndAccept } from './docs-api.ts'
import { envelope, poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

type Peer = { url: string; port: number }
type Authors = Record<string, { number?: string | null; verified?: boolean; relayedBy?: { number: string | null } }>

const authorsOf = async (s: Peer, docId: string): Promise<Authors> =>
  (await call(s, 'GET', `/v1/docs/${docId}/authors`)).json.authors as Authors
const textOf = async (s: Peer, docId: string): Promise<string> =>
  (await call(s, 'GET', `/v1/docs/${docId}/text?target=t&kind=text`)).json.text as string
const commentIds = async (s: Peer, docId: string): Promise<string[]> =>
  ((await call(s, 'GET', `/v1/docs/${docId}/comments`)).json.comments as { id: string }[]).map((c) => c.id)

/** Three pieces typed under `clientId`: the first and the last, so Yjs keeps the last waiting. */
function withGap(clientId: number): Uint8Array {
  const doc = new Y.Doc()
  doc.clientID = clientId
  const pieces = ['not ', 'by ', 'Alice'].map((s) => {
    const before = Y.encodeStateVector(doc)
    doc.getText('t').insert(doc.getText('t').length, s)
    return Y.encodeStateAsUpdate(doc, before)
  })
  return Y.mergeUpdates([pieces[0] as Uint8Array, pieces[2] as Uint8Array])
}

describe("content relayed under this account's tag", () => {
  it("stays relayed by its sender after the owner's sidecar edits the document, at the owner's and at a third member's", async () => {
    const toy = await createToySignal({ accounts: [ALICE, BOB, CAROL], keepAliveMs: 1000 })
    onTestFinished(() => toy.close())
    const peer = async (account: string): Promise<Peer> => {
      const url = await spawnSidecar(libraryEnv(toy, account, { E2E_COL_MEMBERS_REFRESH_MS: '1000' })).ready
      return { url, port: Number(new URL(url).port) }
    }
    const [alice, bob, carol] = await Promise.all([peer(ALICE), peer(BOB), peer(CAROL)])
    const { docId, groupId } = await shareAndAccept(alice, { title: 'Notes', members: [BOB, CAROL] }, [bob, carol])
    const page = await pageOn(docId, alice.url)
    page.edit('Day 1: museum.')
    for (const s of [bob, carol])
      await poll(async () => (await textOf(s, docId)) === 'Day 1: museum.', 'every sidecar holds the text')

    // Bob sends structs under one of Alice's client ids, as a sync answer, with a gap in them.
    const underAlices = clientIdFor(authorTagOfAccount(ALICE), 777)
    const crafted = { ...envelope(docId, randomUUID(), 8, 'sync-response'), payload: withGap(underAlices) }
    await rpc(toy.url, 'send', { account: BOB, groupId, message: encodeBody(encodeEnvelope(crafted)) })
    for (const s of [alice, carol])
      await poll(
        async () => (await authorsOf(s, docId))[String(underAlices)]?.relayedBy?.number === BOB,
        'marked relayed by Bob',
      )

    // Alice's sidecar writes a comment: a copy of its replica, which holds Bob's waiting piece too.
    const made = await call(alice, 'POST', `/v1/docs/${docId}/comments`, {
      body: { index: 0, length: 5, body: 'which day?', target: { name: 't', kind: 'text' } },
    })
    expect(made.status).toBe(201)
    await poll(
      async () => (await commentIds(carol, docId)).includes(made.json.id as string),
      "Alice's comment at Carol's",
    )

    for (const s of [alice, carol]) {
      const entry = (await authorsOf(s, docId))[String(underAlices)]
      expect(entry?.relayedBy?.number).toBe(BOB)
      expect(entry?.verified).not.toBe(true)
    }
    // Alice's comment itself is hers, verified, everywhere: written under an id of her own.
    for (const s of [alice, carol]) {
      const view = Object.entries(await authorsOf(s, docId))
      expect(view.some(([id, a]) => id !== String(underAlices) && a.number === ALICE && a.verified === true)).toBe(true)
    }
  }, 90_000)
})
