/**
 * Bans and invite links as Signal's servers keep them: a person removed with a ban cannot come back
 * by the group's link, a link can be off or need an admin's approval, and only admins remove, ban
 * or change the link.
 */
import { describe, expect, it } from 'vitest'
import { createToySignal } from '../src/index.ts'
import { rpc, startToy } from './toy-rpc.ts'

const A = '+33600000001'
const B = '+33600000002'
const C = '+33600000003'

interface Listed {
  members: { number: string }[]
  requestingMembers: { number: string }[]
  banned: { number: string }[]
  groupInviteLink: string | null
}

async function listed(toy: Awaited<ReturnType<typeof startToy>>, account: string, groupId: string): Promise<Listed> {
  return (await rpc(toy, 'listGroups', { account, groupId })).result[0] as Listed
}
const numbers = (list: { number: string }[]) => list.map((m) => m.number).sort()

async function groupOfThree() {
  const toy = await startToy({ accounts: [A, B, C] })
  const made = await rpc(toy, 'updateGroup', { account: A, name: 'Doc', members: [B, C] })
  return { toy, groupId: made.result.groupId as string }
}

describe('bans and invite links on the toy', () => {
  it('a group starts with no link and no bans; a link turned on is listed and can be reset', async () => {
    const { toy, groupId } = await groupOfThree()
    expect(await listed(toy, A, groupId)).toMatchObject({ groupInviteLink: null, banned: [] })
    expect((await rpc(toy, 'updateGroup', { account: A, groupId, link: 'enabled' })).result.results).toHaveLength(2)
    const link = (await listed(toy, B, groupId)).groupInviteLink
    expect(link).toMatch(/^https:\/\/signal\.group\/#[A-Za-z0-9_-]+$/)
    await rpc(toy, 'updateGroup', { account: A, groupId, resetLink: true })
    const reset = (await listed(toy, B, groupId)).groupInviteLink
    expect(reset).not.toBe(link)
    await rpc(toy, 'updateGroup', { account: A, groupId, link: 'disabled' })
    expect((await listed(toy, B, groupId)).groupInviteLink).toBeNull()
  })

  it('removed with a ban, a person cannot rejoin by the link; removed without one, they can', async () => {
    const { toy, groupId } = await groupOfThree()
    await rpc(toy, 'updateGroup', { account: A, groupId, link: 'enabled' })
    const link = (await listed(toy, A, groupId)).groupInviteLink
    const removed = await rpc(toy, 'updateGroup', { account: A, groupId, removeMember: [B], ban: [B] })
    expect(removed.result.results.map((r: { type: string }) => r.type)).toEqual(['SUCCESS', 'SUCCESS'])
    const after = await listed(toy, A, groupId)
    expect(numbers(after.members)).toEqual([A, C])
    expect(numbers(after.banned)).toEqual([B])
    expect((await rpc(toy, 'joinGroup', { account: B, uri: link })).error).toEqual({
      code: -1,
      message: 'Group link is not valid: Group link inactive (reason: BANNED)',
      data: null,
    })
    expect(numbers((await listed(toy, A, groupId)).members)).toEqual([A, C])

    await rpc(toy, 'updateGroup', { account: A, groupId, removeMember: [C] })
    const rejoined = await rpc(toy, 'joinGroup', { account: C, uri: link })
    expect(rejoined.result).toMatchObject({ groupId, results: [{ type: 'SUCCESS' }] })
    expect(numbers((await listed(toy, A, groupId)).members)).toEqual([A, C])
  })

  it('an admin adding a banned person back lifts the ban; a plain member may not ban, remove or touch the link', async () => {
    const { toy, groupId } = await groupOfThree()
    await rpc(toy, 'updateGroup', { account: A, groupId, removeMember: [B], ban: [B] })
    for (const change of [{ removeMember: [A] }, { ban: [A] }, { unban: [B] }, { link: 'enabled' }, { members: [B] }]) {
      const refused = await rpc(toy, 'updateGroup', { account: C, groupId, ...change })
      expect(refused.error.message).toBe(
        'Failed to send message: [403] Authorization failed! (AuthorizationFailedException) (UnexpectedErrorException)',
      )
    }
    expect(numbers((await listed(toy, A, groupId)).banned)).toEqual([B])
    await rpc(toy, 'updateGroup', { account: A, groupId, members: [B] })
    const back = await listed(toy, A, groupId)
    expect(numbers(back.members)).toEqual([A, B, C])
    expect(back.banned).toEqual([])
  })

  it('a link with approval makes a request; the link off, a wrong one or none answer as signal-cli does', async () => {
    const { toy, groupId } = await groupOfThree()
    await rpc(toy, 'updateGroup', { account: A, groupId, removeMember: [C] })
    await rpc(toy, 'updateGroup', { account: A, groupId, link: 'enabled-with-approval' })
    const link = (await listed(toy, A, groupId)).groupInviteLink as string
    expect((await rpc(toy, 'joinGroup', { account: C, uri: link })).result).toEqual({
      timestamp: 0,
      results: [],
      groupId,
      onlyRequested: true,
    })
    expect(numbers((await listed(toy, A, groupId)).requestingMembers)).toEqual([C])
    expect((await rpc(toy, 'joinGroup', { account: C, uri: link })).error.message).toBe(
      'Pending admin approval: You have already requested to join the group.',
    )
    await rpc(toy, 'updateGroup', { account: A, groupId, link: 'disabled' })
    expect((await rpc(toy, 'joinGroup', { account: C, uri: link })).error.message).toBe(
      'Group link is not valid: Group link inactive (reason: UNKNOWN)',
    )
    expect((await rpc(toy, 'joinGroup', { account: C, uri: 'nope' })).error).toMatchObject({
      code: -1,
      message: 'Link is not a signal group invitation link',
    })
    expect((await rpc(toy, 'joinGroup', { account: C })).error.code).toBe(-32603)
  })

  it('bans and the link survive a snapshot', async () => {
    const { toy, groupId } = await groupOfThree()
    await rpc(toy, 'updateGroup', { account: A, groupId, removeMember: [B], ban: [B], link: 'enabled' })
    const link = (await listed(toy, A, groupId)).groupInviteLink
    const again = await createToySignal({ accounts: [A, B, C], restoreGroups: toy.snapshotGroups() })
    try {
      const restored = (await rpc(again, 'listGroups', { account: A, groupId })).result[0] as Listed
      expect(numbers(restored.banned)).toEqual([B])
      expect(restored.groupInviteLink).toBe(link)
    } finally {
      await again.close()
    }
  })
})

describe('member labels on the toy', () => {
  it('from 0.14.1 each member sets their own label, listed beside them; 0.13.19 ignores the params', async () => {
    const toy = await startToy({ accounts: [A, B, C], groups: [{ name: 'Doc', members: [A, B, C] }] })
    const groupId = toy.groups[0]?.id as string
    const set = await rpc(toy, 'updateGroup', { account: B, groupId, memberLabel: 'viewer' })
    expect(set.result.results).toHaveLength(2)
    await rpc(toy, 'updateGroup', { account: B, groupId, memberLabelEmoji: '👁' })
    const members = (await rpc(toy, 'listGroups', { account: A, groupId })).result[0].members as Record<
      string,
      unknown
    >[]
    expect(members.find((m) => m['number'] === B)).toMatchObject({ label: 'viewer', labelEmoji: '👁' })
    expect(members.find((m) => m['number'] === A)).not.toHaveProperty('label')
    // The same label again changes nothing.
    expect((await rpc(toy, 'updateGroup', { account: B, groupId, memberLabel: 'viewer' })).result).toEqual({})

    const old = await startToy({
      accounts: [A, B],
      groups: [{ name: 'Doc', members: [A, B] }],
      signalCliVersion: '0.13.19',
    })
    const oldId = old.groups[0]?.id as string
    expect((await rpc(old, 'updateGroup', { account: B, groupId: oldId, memberLabel: 'viewer' })).result).toEqual({})
    const oldMembers = (await rpc(old, 'listGroups', { account: A, groupId: oldId })).result[0].members
    expect(oldMembers).toEqual([
      { number: A, uuid: expect.any(String) },
      { number: B, uuid: expect.any(String) },
    ])
  })
})
