/**
 * Removing someone from a document bans them in Signal's group (decisions/0023): even if a phone
 * turns the group's invite link on, Signal's server refuses them the link; sharing the document
 * with them again lifts the ban. Document groups are made without an invite link, and one a phone
 * turns on is turned off again by an admin's sidecar.
 */
import { describe, expect, it } from 'vitest'
import { ALICE, BOB, call, librarySidecar, rpc, startPeopleToy } from './docs-api.ts'
import { poll } from './harness.ts'

interface Listed {
  members: { number: string }[]
  banned: { number: string }[]
  groupInviteLink: string | null
}

async function joinByLink(url: string, account: string, uri: string): Promise<{ code: number; message: string }> {
  const res = await fetch(`${url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'joinGroup', params: { account, uri } }),
  })
  return ((await res.json()) as { error: { code: number; message: string } }).error
}

describe('removal bans', () => {
  it('Bob, removed, is banned; shared with again, he is let in; removed again, a link cannot bring him back', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const created = await call(alice, 'POST', '/v1/docs', { body: { title: 'Plan', members: [BOB] } })
    const { docId, groupId } = created.json as { docId: string; groupId: string }
    const listed = async (): Promise<Listed> => (await rpc(toy.url, 'listGroups', { account: ALICE, groupId }))[0]
    expect((await listed()).groupInviteLink).toBeNull()
    await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 1, "Bob's invitation")
    expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)

    const remove = () => call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { remove: [BOB] } })
    expect((await remove()).status).toBe(200)
    const after = await listed()
    expect(after.members.map((m) => m.number)).toEqual([ALICE])
    expect(after.banned.map((m) => m.number)).toEqual([BOB])

    // Shared with again, he is let in: the add lifts the ban.
    expect((await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { add: [BOB] } })).status).toBe(200)
    expect((await listed()).banned).toEqual([])

    expect((await remove()).status).toBe(200)
    expect((await listed()).banned.map((m) => m.number)).toEqual([BOB])
    // Alice's sidecar away, a phone of hers turns the link on; Signal refuses Bob all the same.
    await alice.close()
    await rpc(toy.url, 'updateGroup', { account: ALICE, groupId, link: 'enabled' })
    const link = (await listed()).groupInviteLink as string
    expect(await joinByLink(toy.url, BOB, link)).toEqual({
      code: -1,
      message: 'Group link is not valid: Group link inactive (reason: BANNED)',
      data: null,
    })
    expect((await listed()).members.map((m) => m.number)).toEqual([ALICE])
  }, 60_000)

  it("a link someone's phone turns on for a document's group is turned off by the owner's sidecar", async () => {
    const toy = await startPeopleToy()
    // Her own phone's change reaches her sidecar by its periodic listing (here every second).
    const alice = await librarySidecar(toy, ALICE, { E2E_COL_MEMBERS_REFRESH_MS: '1000' })
    const created = await call(alice, 'POST', '/v1/docs', { body: { title: 'Plan', members: [BOB] } })
    const { groupId } = created.json as { groupId: string }
    const link = async (): Promise<string | null> =>
      ((await rpc(toy.url, 'listGroups', { account: ALICE, groupId }))[0] as Listed).groupInviteLink
    await rpc(toy.url, 'updateGroup', { account: ALICE, groupId, link: 'enabled' })
    await poll(async () => (await link()) === null, 'the link turned off again')
    expect(toy.snapshotGroups().find((g) => g.id === groupId)?.link).toBe('disabled')
  }, 60_000)
})
