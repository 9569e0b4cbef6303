/**
 * Removing someone from a document bans them in Signal's group (decisions/0023): even if a phone
 * turns the group's invite link on, Signal's server refuses them the link; sharing the document
 * with them again lifts the ban. Document groups are made without an invite link.
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
  it('Bob, removed, cannot come back by the link; shared with again, he is let in', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const created = await call(alice, 'POST', '/v1/docs', { body: { title: 'Plan', members: [BOB] } })
    const { docId, groupId } = created.json as { docId: string; groupId: string }
    const listed = async (): Promise<Listed> => (await rpc(toy.url, 'listGroups', { account: ALICE, groupId }))[0]
    expect((await listed()).groupInviteLink).toBeNull()
    await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 1, "Bob's invitation")
    expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)

    expect((await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { remove: [BOB] } })).status).toBe(200)
    const after = await listed()
    expect(after.members.map((m) => m.number)).toEqual([ALICE])
    expect(after.banned.map((m) => m.number)).toEqual([BOB])

    // A phone of Alice's turns the link on; Signal refuses Bob all the same.
    await rpc(toy.url, 'updateGroup', { account: ALICE, groupId, link: 'enabled' })
    const link = (await listed()).groupInviteLink as string
    expect(await joinByLink(toy.url, BOB, link)).toEqual({
      code: -1,
      message: 'Group link is not valid: Group link inactive (reason: BANNED)',
      data: null,
    })
    expect((await listed()).members.map((m) => m.number)).toEqual([ALICE])

    expect((await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { add: [BOB] } })).status).toBe(200)
    expect((await listed()).banned).toEqual([])
  }, 60_000)
})
