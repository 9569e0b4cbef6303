/** Admins and permissions as Signal's servers enforce them: only admins change roles, and "only admins" permissions hold. */
import { describe, expect, it } from 'vitest'
import { rpc, startToy } from './toy-rpc.ts'

const A = '+33600000001'
const B = '+33600000002'
const C = '+33600000003'

interface Listed {
  members: { number: string; isAdmin?: boolean }[]
  permissionAddMember: string
  permissionEditDetails: string
}

async function group(toy: Awaited<ReturnType<typeof startToy>>, account: string): Promise<Listed> {
  const answer = await rpc(toy, 'listGroups', { account })
  return answer.result[0] as Listed
}

const admins = (g: Listed) => g.members.filter((m) => m.isAdmin === true).map((m) => m.number)

describe('group roles on the toy', () => {
  it('a group created with admins and only-admins permissions lists them', async () => {
    const toy = await startToy({ accounts: [A, B, C] })
    await rpc(toy, 'updateGroup', {
      account: A,
      name: 'Roles',
      members: [B, C],
      admins: [B],
      setPermissionAddMember: 'only-admins',
      setPermissionEditDetails: 'only-admins',
    })
    const g = await group(toy, C)
    expect(admins(g).sort()).toEqual([A, B])
    expect(g.permissionAddMember).toBe('ONLY_ADMINS')
    expect(g.permissionEditDetails).toBe('ONLY_ADMINS')
  })

  it('an admin makes and unmakes admins; a plain member is refused with the 403 signal-cli reports', async () => {
    const toy = await startToy({ accounts: [A, B, C] })
    const made = await rpc(toy, 'updateGroup', { account: A, name: 'Roles', members: [B, C] })
    const groupId = made.result.groupId as string
    const refused = await rpc(toy, 'updateGroup', { account: C, groupId, admins: [C] })
    expect(refused.error.code).toBe(-32603)
    expect(refused.error.message).toContain('AuthorizationFailedException')
    expect(admins(await group(toy, A))).toEqual([A])

    await rpc(toy, 'updateGroup', { account: A, groupId, admins: [C] })
    expect(admins(await group(toy, B)).sort()).toEqual([A, C])
    await rpc(toy, 'updateGroup', { account: C, groupId, removeAdmins: [A] })
    expect(admins(await group(toy, B))).toEqual([C])
  })

  it('with only-admins permissions a plain member may neither rename nor add; with every-member they may', async () => {
    const toy = await startToy({ accounts: [A, B, C] })
    const open = await rpc(toy, 'updateGroup', { account: A, name: 'Open', members: [B] })
    expect((await rpc(toy, 'updateGroup', { account: B, groupId: open.result.groupId, name: 'Renamed' })).error).toBe(
      undefined,
    )
    const closed = await rpc(toy, 'updateGroup', {
      account: A,
      name: 'Closed',
      members: [B],
      setPermissionAddMember: 'only-admins',
      setPermissionEditDetails: 'only-admins',
    })
    const groupId = closed.result.groupId as string
    expect((await rpc(toy, 'updateGroup', { account: B, groupId, name: 'Renamed' })).error.code).toBe(-32603)
    expect((await rpc(toy, 'updateGroup', { account: B, groupId, members: [C] })).error.code).toBe(-32603)
    const g = await group(toy, A)
    expect(g.members.map((m) => m.number)).toEqual([A, B])
  })

  it('admins are made of members only (signal-cli skips anyone else)', async () => {
    const toy = await startToy({ accounts: [A, B, C] })
    const made = await rpc(toy, 'updateGroup', { account: A, name: 'Roles', members: [B] })
    await rpc(toy, 'updateGroup', { account: A, groupId: made.result.groupId, admins: [C] })
    expect(admins(await group(toy, A))).toEqual([A])
  })
})
