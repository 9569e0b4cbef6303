/**
 * Sharing a document again with someone removed from it: their sidecar offers the invitation
 * again (no Forget needed first), and accepting serves the same document, with its kept replica
 * and last change, so edits flow both ways again.
 */
import { describe, expect, it } from 'vitest'
import { ALICE, BOB, call, editBothWays, librarySidecar, shareAndAccept, startPeopleToy } from './docs-api.ts'
import { connect, envelope, isMessage, poll } from './harness.ts'

describe('sharing again after a removal', () => {
  it('Bob, removed, is offered the document again and accepts it without pressing Forget', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const { docId } = await shareAndAccept(alice, { title: 'Trip plan', members: [BOB] }, [bob])
    const bobWs = await connect(bob, docId)
    const aliceWs = await connect(alice, docId)
    const first = envelope(docId, aliceWs.senderId, 40)
    aliceWs.send(first)
    await bobWs.waitFor(isMessage(first.messageId), 10_000)
    await poll(
      async () => (await call(bob, 'GET', '/v1/docs')).json.documents[0]?.lastChange !== null,
      "Bob's last change time",
    )

    await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { remove: [BOB] } })
    await poll(
      async () => (await call(bob, 'GET', '/v1/docs')).json.documents[0]?.state === 'removed',
      "Bob's document to be marked removed",
    )

    expect((await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { add: [BOB] } })).status).toBe(200)
    await poll(
      async () => (await call(bob, 'GET', '/v1/invites')).json.invites.some((i: { id: string }) => i.id === docId),
      'the invitation offered again',
    )
    expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
    const docs = (await call(bob, 'GET', '/v1/docs')).json.documents
    expect(docs).toEqual([expect.objectContaining({ docId, state: 'active' })])
    expect(docs[0].lastChange).not.toBeNull()
    expect((await call(bob, 'GET', '/v1/invites')).json.invites).toEqual([])
    // Let in again as a plain member, Bob views until Alice's sidecar makes him an editor again.
    await poll(
      async () =>
        (await call(bob, 'GET', '/v1/docs')).json.documents[0]?.members.some(
          (m: { you: boolean; role?: string }) => m.you && m.role === 'editor',
        ),
      'Bob an editor again',
    )

    await editBothWays(docId, aliceWs, await connect(bob, docId))
  }, 60_000)
})
