/**
 * "Delete for everyone" (decisions/0028): an editor deletes a document for every member. A daemon
 * of signal-cli 0.14.8+ ends the group (terminateGroup); an older one (the real 0.13.19 the
 * contract suite runs) cannot, so everyone is removed and banned and the owner leaves. Either way
 * every member's sidecar stops serving it and lists it as deleted for everyone, by whom; a viewer
 * may not delete it.
 */
import { describe, expect, it } from 'vitest'
import type { RunningSidecar } from '../src/index.ts'
import { ALICE, BOB, CAROL, call, librarySidecar, rpc, shareAndAccept, startPeopleToy } from './docs-api.ts'
import { poll } from './harness.ts'

interface Card {
  docId: string
  state: string
  deletedForEveryone?: true
  removedBy?: { number: string }
}

const card = async (s: RunningSidecar, docId: string): Promise<Card | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as Card[]).find((d) => d.docId === docId)

describe.each([
  ['0.14.8', 'terminated'],
  ['0.13.19', 'removed-and-left'],
] as const)('delete for everyone on a daemon playing %s', (version, way) => {
  it(`a viewer is refused; the editor's deletion (${way}) reaches every member as deleted by her`, async () => {
    const toy = await startPeopleToy({ signalCliVersion: version })
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const carol = await librarySidecar(toy, CAROL)
    const { docId, groupId } = await shareAndAccept(
      alice,
      { title: 'Trip plan', members: [BOB, { number: CAROL, role: 'viewer' }] },
      [bob, carol],
    )

    const viewer = await call(carol, 'POST', `/v1/docs/${docId}/delete-for-everyone`, { body: {} })
    expect([viewer.status, viewer.json.error.code]).toEqual([403, 'DOCS_NOT_EDITOR'])
    expect((await card(carol, docId))?.state).toBe('active')
    // Only a POST with an empty body deletes.
    const path = `/v1/docs/${docId}/delete-for-everyone`
    expect((await call(alice, 'GET', path)).json.error.code).toBe('API_METHOD_NOT_ALLOWED')
    expect((await call(alice, 'POST', path, { body: { really: true } })).json.error.code).toBe('DOCS_BAD_REQUEST')
    expect((await card(alice, docId))?.state).toBe('active')

    const deleted = await call(alice, 'POST', `/v1/docs/${docId}/delete-for-everyone`, { body: {} })
    expect([deleted.status, deleted.json]).toEqual([200, { docId, way }])
    for (const s of [alice, bob, carol]) {
      await poll(async () => (await card(s, docId))?.deletedForEveryone === true, 'the document deleted')
      expect(await card(s, docId)).toMatchObject({ state: 'removed', removedBy: { number: ALICE } })
      // A deleted document is never offered again as an invitation (its ended group still lists them).
      expect((await call(s, 'GET', '/v1/invites')).json.invites).toEqual([])
    }
    const group = toy.snapshotGroups().find((g) => g.id === groupId)
    if (way === 'terminated') {
      expect(group?.terminated).toBe(true)
      // Nobody can send to an ended group any more.
      const sent = await rpc(toy.url, 'send', { account: BOB, groupId, message: 'x' })
      expect(sent).toBeUndefined()
    } else {
      expect(group?.members).toEqual([])
      expect([...(group?.banned ?? [])].sort()).toEqual([BOB, CAROL])
    }
    // Deleted documents are not deleted twice.
    const again = await call(alice, 'POST', `/v1/docs/${docId}/delete-for-everyone`, { body: {} })
    expect([again.status, again.json.error.code]).toEqual([409, 'DOCS_NOT_SHARED'])
  }, 90_000)
})
