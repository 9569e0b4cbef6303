/**
 * `listGroups`, `updateGroup`, `quitGroup`: shapes and errors (daemon-contract.md §6.4).
 */
import { maskNumbersIn } from '@e2e-col/signal-cli'
import { expect } from 'vitest'
import { rpcAnswer } from '../http-probe.ts'
import { expectRpcFailure } from '../client-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, versionAtLeast } from '../target.ts'
import { expectCallError } from './jsonrpc-parsing.ts'
import { unknownGroupId } from './send.ts'

const GROUP_KEYS = [
  'admins',
  'banned',
  'description',
  'groupInviteLink',
  'id',
  'isBlocked',
  'isMember',
  'members',
  'messageExpirationTime',
  'name',
  'pendingMembers',
  'permissionAddMember',
  'permissionEditDetails',
  'permissionSendMessage',
  'requestingMembers',
]

interface Member {
  number: string | null
  uuid: string
}
interface Group {
  id: string
  name: string
  isMember: boolean
  members: (Member & { isAdmin?: boolean })[]
  admins: Member[]
  permissionAddMember: string
  permissionEditDetails: string
  permissionSendMessage: string
  groupInviteLink: string | null
}

async function call(
  url: string,
  method: string,
  params: Record<string, unknown>,
): Promise<{ result?: unknown; error?: unknown }> {
  return (await rpcAnswer(url, method, params, method)).json as { result?: unknown; error?: unknown }
}

/** A member's number as the client's listing gives it (a bare string or `{number, uuid}`). */
function memberNumber(m: string | { number?: string | null | undefined }): string | null | undefined {
  return typeof m === 'string' ? m : m.number
}

function memberKeys(group: Group | undefined): string[] {
  return (group?.members ?? []).map((m) => `${m.number} ${m.uuid}`).sort()
}

export function registerGroupCases(defineCase: DefineCase): void {
  defineCase(
    'account',
    'listGroups returns the detailed shape with members as {number, uuid} (isAdmin from 0.14.1 only)',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const groups = (await call(t.url, 'listGroups', { account: a })).result as Group[]
      const group = groups.find((g) => g.id === groupId)
      expect(group?.id).toBe(groupId)
      // Admins are always in `admins`; members name them only from 0.14.1 (member labels).
      const withAdmin = versionAtLeast(t.version, '0.14.1')
      for (const m of group?.members ?? []) expect('isAdmin' in m).toBe(withAdmin)
      expect(new Set(Object.keys(group ?? {}).filter((k) => GROUP_KEYS.includes(k)))).toEqual(new Set(GROUP_KEYS))
      expect(group?.isMember).toBe(true)
      expect(group?.members.map((m) => m.number)).toEqual(expect.arrayContaining([a, b]))
      expect(Buffer.from(groupId, 'base64')).toHaveLength(32)
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const group = (await c.backend(a).listGroups()).find((g) => g.id === groupId)
        expect(group?.isMember).toBe(true)
        expect(group?.members?.map(memberNumber)).toEqual(expect.arrayContaining([a, b]))
        expect(group?.admins?.length).toBeGreaterThan(0)
      },
    },
  )

  defineCase(
    'account',
    'listGroups with a groupId filter skips unknown ids and rejects malformed ones',
    async (t) => {
      const { a, groupId } = fixtures(t)
      expect(((await call(t.url, 'listGroups', { account: a, groupId })).result as Group[]).map((g) => g.id)).toEqual([
        groupId,
      ])
      expect((await call(t.url, 'listGroups', { account: a, groupId: unknownGroupId() })).result).toEqual([])
      await expectCallError(t.url, 'listGroups', { account: a, groupId: 'nope!' }, -1, /^Invalid group id: /)
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        const backend = c.backend(a)
        expect((await backend.listGroups(groupId)).map((g) => g.id)).toEqual([groupId])
        expect(await backend.listGroups(unknownGroupId())).toEqual([])
        await expectRpcFailure(backend.listGroups('nope!'), -1, /^Invalid group id: /)
      },
    },
  )

  defineCase(
    'delivery',
    'updateGroup creates a group, renames it, answers {} for no change; quitGroup leaves it',
    async (t) => {
      const { a, b } = fixtures(t)
      const created = (await call(t.url, 'updateGroup', { account: a, name: 'contract group', members: [b] }))
        .result as {
        groupId: string
        timestamp: number
        results: { recipientAddress: { number: string }; groupId?: string; type: string }[]
      }
      expect(Buffer.from(created.groupId, 'base64')).toHaveLength(32)
      expect(Number.isSafeInteger(created.timestamp)).toBe(true)
      expect(created.results.map((r) => r.recipientAddress.number)).toContain(b)
      // Unlike send results, updateGroup results carry no groupId.
      for (const r of created.results) expect(r).not.toHaveProperty('groupId')

      const renamed = (
        await call(t.url, 'updateGroup', { account: a, groupId: created.groupId, name: 'contract group 2' })
      ).result
      expect(new Set(Object.keys(renamed as object))).toEqual(new Set(['results', 'timestamp']))
      expect(
        (await call(t.url, 'updateGroup', { account: a, groupId: created.groupId, name: 'contract group 2' })).result,
      ).toEqual({})

      const quit = (await call(t.url, 'quitGroup', { account: b, groupId: created.groupId })).result
      expect(new Set(Object.keys(quit as object))).toEqual(new Set(['results', 'timestamp']))
      const seenByB = ((await call(t.url, 'listGroups', { account: b, groupId: created.groupId })).result as Group[])[0]
      expect(seenByB?.isMember).toBe(false)
      expect((await call(t.url, 'quitGroup', { account: b, groupId: created.groupId })).result).toEqual({})
      const afterQuit = { account: b, groupId: created.groupId, message: 'x' }
      await expectCallError(t.url, 'send', afterQuit, -1, /^User is not a member in group: /)
    },
    {
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        const id = await c.backend(a).createGroup('contract group (client)', [b])
        expect(Buffer.from(id, 'base64')).toHaveLength(32)
        await c.backend(a).updateGroup(id, { name: 'contract group (client) 2' })
        await c.backend(a).updateGroup(id, { name: 'contract group (client) 2' })
        await c.backend(b).quitGroup(id)
        expect((await c.backend(b).listGroups(id))[0]?.isMember).toBe(false)
        await c.backend(b).quitGroup(id)
        await expectRpcFailure(c.backend(b).sendGroupMessage(id, 'x'), -1, /^User is not a member in group: /)
      },
    },
  )

  defineCase(
    'account',
    'both members list the shared group the same way; admins are members, permissions and invite link are well-formed',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const [viewA, viewB] = await Promise.all(
        [a, b].map(async (account) => ((await call(t.url, 'listGroups', { account, groupId })).result as Group[])[0]),
      )
      expect(viewA?.isMember).toBe(true)
      expect(viewB?.isMember).toBe(true)
      expect(memberKeys(viewB)).toEqual(memberKeys(viewA))
      for (const group of [viewA, viewB]) {
        const memberUuids = new Set(group?.members.map((m) => m.uuid))
        expect(group?.admins.length).toBeGreaterThan(0)
        for (const admin of group?.admins ?? []) expect(memberUuids.has(admin.uuid)).toBe(true)
        for (const permission of [
          group?.permissionAddMember,
          group?.permissionEditDetails,
          group?.permissionSendMessage,
        ])
          expect(['EVERY_MEMBER', 'ONLY_ADMINS']).toContain(permission)
        if (group?.groupInviteLink !== null) expect(group?.groupInviteLink).toMatch(/^https:\/\/signal\.group\/#/)
      }
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const [viewA, viewB] = await Promise.all(
          [a, b].map(async (account) => (await c.backend(account).listGroups(groupId))[0]),
        )
        expect(viewA?.isMember).toBe(true)
        expect(viewB?.isMember).toBe(true)
        const numbers = (group: typeof viewA): unknown[] => (group?.members ?? []).map(memberNumber).sort()
        expect(numbers(viewB)).toEqual(numbers(viewA))
      },
    },
  )

  defineCase(
    'account',
    'a group one has left is still listed, with isMember:false; its members list it with isMember:true',
    async (t) => {
      const { a, b, formerGroupId } = fixtures(t)
      const byA = ((await call(t.url, 'listGroups', { account: a })).result as Group[]).find(
        (g) => g.id === formerGroupId,
      )
      expect(byA?.isMember).toBe(false)
      expect(byA?.members.map((m) => m.number)).not.toContain(a)
      const byB = ((await call(t.url, 'listGroups', { account: b, groupId: formerGroupId })).result as Group[])[0]
      expect(byB?.isMember).toBe(true)
      expect(byB?.members.map((m) => m.number)).toContain(b)
    },
    {
      client: async (t, c) => {
        const { a, b, formerGroupId } = fixtures(t)
        const byA = (await c.backend(a).listGroups()).find((g) => g.id === formerGroupId)
        expect(byA?.isMember).toBe(false)
        expect(byA?.members?.map(memberNumber)).not.toContain(a)
        expect((await c.backend(b).listGroups(formerGroupId))[0]?.isMember).toBe(true)
      },
    },
  )

  defineCase(
    'account',
    'updateGroup without a change answers {}; quitGroup of a group already left answers {}',
    async (t) => {
      const { a, groupId, formerGroupId } = fixtures(t)
      expect((await call(t.url, 'updateGroup', { account: a, groupId })).result).toEqual({})
      expect((await call(t.url, 'quitGroup', { account: a, groupId: formerGroupId })).result).toEqual({})
      // Quitting changed nothing: the group is still listed as left.
      const after = ((await call(t.url, 'listGroups', { account: a, groupId: formerGroupId })).result as Group[])[0]
      expect(after?.isMember).toBe(false)
    },
    {
      client: async (t, c) => {
        const { a, groupId, formerGroupId } = fixtures(t)
        const backend = c.backend(a)
        await expect(backend.updateGroup(groupId, {})).resolves.toBeUndefined()
        await expect(backend.leaveGroup(formerGroupId, [])).resolves.toBeUndefined()
        await expect(backend.quitGroup(formerGroupId)).resolves.toBeUndefined()
        expect((await backend.listGroups(formerGroupId))[0]?.isMember).toBe(false)
      },
    },
  )

  defineCase(
    'account',
    'updateGroup with an unknown link state or permission is -1, before anything is sent',
    async (t) => {
      const { a, groupId } = fixtures(t)
      const link = { account: a, groupId, link: 'bogus' }
      await expectCallError(t.url, 'updateGroup', link, -1, 'Invalid group link state: bogus')
      const flags = ['setPermissionAddMember', 'setPermissionEditDetails', 'setPermissionSendMessages']
      for (const [i, flag] of flags.entries()) {
        const permission = { account: a, groupId, [flag]: 'bogus' }
        await expectCallError(t.url, 'updateGroup', permission, -1, 'Invalid group permission: bogus', i)
      }
    },
  )

  defineCase('account', 'quitGroup without groupId is -32603 (NullPointerException)', async (t) => {
    const { a } = fixtures(t)
    await expectCallError(t.url, 'quitGroup', { account: a }, -32603, /\(NullPointerException\)$/)
  })

  defineCase(
    'account',
    'updateGroup and quitGroup on an unknown group are -1',
    async (t) => {
      const { a } = fixtures(t)
      const id = unknownGroupId()
      await expectCallError(t.url, 'updateGroup', { account: a, groupId: id, name: 'x' }, -1, `Group not found: ${id}`)
      const quit = { account: a, groupId: id }
      await expectCallError(t.url, 'quitGroup', quit, -1, `Failed to send to group: Group not found: ${id}`, 2)
    },
    {
      client: async (t, c) => {
        const { a } = fixtures(t)
        const id = unknownGroupId()
        await expectRpcFailure(c.backend(a).updateGroup(id, { name: 'x' }), -1, maskNumbersIn(`Group not found: ${id}`))
        await expectRpcFailure(
          c.backend(a).leaveGroup(id, []),
          -1,
          maskNumbersIn(`Failed to send to group: Group not found: ${id}`),
        )
      },
    },
  )

  defineCase(
    'account',
    'bans and links: a ban of no number is -1 before anything; unbanning one not banned is {}; joinGroup needs a group link',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const ban = { account: a, groupId, ban: ['nope'] }
      await expectCallError(t.url, 'updateGroup', ban, -1, "Invalid phone number 'nope': No valid characters found.")
      expect((await call(t.url, 'updateGroup', { account: a, groupId, unban: [b] })).result).toEqual({})
      await expectCallError(
        t.url,
        'joinGroup',
        { account: a, uri: 'nope' },
        -1,
        'Link is not a signal group invitation link',
      )
      await expectCallError(t.url, 'joinGroup', { account: a }, -32603, /\(NullPointerException\)$/, 2)
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        await expectRpcFailure(
          c.backend(a).updateGroup(groupId, { ban: ['nope'] }),
          -1,
          "Invalid phone number 'nope': No valid characters found.",
        )
        // An empty ban sends no `ban` at all: nothing changes.
        await expect(c.backend(a).updateGroup(groupId, { ban: [] })).resolves.toBeUndefined()
      },
    },
  )

  defineCase(
    'delivery',
    'updateGroup removeMember with ban removes and bans; the banned cannot join by the link; adding them back lifts the ban',
    async (t) => {
      const { a, b } = fixtures(t)
      const created = (await call(t.url, 'updateGroup', { account: a, name: 'contract bans', members: [b] }))
        .result as {
        groupId: string
      }
      const groupId = created.groupId
      const listed = async () => ((await call(t.url, 'listGroups', { account: a, groupId })).result as BannedGroup[])[0]
      expect((await listed())?.groupInviteLink).toBeNull()
      await call(t.url, 'updateGroup', { account: a, groupId, removeMember: [b], ban: [b], link: 'enabled' })
      const after = await listed()
      expect(after?.members.map(memberNumber)).toEqual([a])
      expect(after?.banned.map(memberNumber)).toEqual([b])
      const link = after?.groupInviteLink ?? ''
      expect(link).toMatch(/^https:\/\/signal\.group\/#/)
      const join = { account: b, uri: link }
      await expectCallError(
        t.url,
        'joinGroup',
        join,
        -1,
        'Group link is not valid: Group link inactive (reason: BANNED)',
      )
      await call(t.url, 'updateGroup', { account: a, groupId, members: [b] })
      expect((await listed())?.banned).toEqual([])
    },
    {
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        const id = await c.backend(a).createGroup('contract bans (client)', [b])
        await c.backend(a).updateGroup(id, { removeMembers: [b], ban: [b] })
        const raw = ((await call(t.url, 'listGroups', { account: a, groupId: id })).result as BannedGroup[])[0]
        expect(raw?.banned.map(memberNumber)).toEqual([b])
        await c.backend(a).updateGroup(id, { addMembers: [b] })
        expect((await c.backend(a).listGroups(id))[0]?.members?.map(memberNumber)).toContain(b)
      },
    },
  )

  defineCase(
    'account',
    "member labels: before 0.14.1 memberLabel is an unknown param ({}), from 0.14.1 it sets the caller's own label",
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const answer = await call(t.url, 'updateGroup', { account: b, groupId, memberLabel: 'viewer' })
      const members = ((await call(t.url, 'listGroups', { account: a, groupId })).result as LabelledGroup[])[0]?.members
      const labelOfB = members?.find((m) => m.number === b)?.label
      if (versionAtLeast(t.version, '0.14.1')) {
        expect(Object.keys(answer.result as object).sort()).toEqual(['results', 'timestamp'])
        expect(labelOfB).toBe('viewer')
      } else {
        expect(answer.result).toEqual({})
        expect(labelOfB).toBeUndefined()
      }
    },
    {
      client: async (t, c) => {
        const { b, groupId } = fixtures(t)
        // The client asks nothing of a daemon that predates labels.
        expect(await c.backend(b).labelSelf(groupId, 'viewer')).toBe(versionAtLeast(t.version, '0.14.1'))
      },
    },
  )

  defineCase(
    'any',
    'terminateGroup is a method from signal-cli 0.14.8 only: an older daemon answers -32601 Method not implemented',
    async (t) => {
      const params = { groupId: unknownGroupId() }
      if (!versionAtLeast(t.version, '0.14.8')) {
        await expectCallError(t.url, 'terminateGroup', params, -32601, 'Method not implemented')
        return
      }
      // A daemon that has it gets past the method lookup (to the account, or the unknown group).
      const answer = (await call(t.url, 'terminateGroup', params)).error as { code: number } | undefined
      expect(answer?.code).not.toBe(-32601)
    },
  )

  defineCase(
    'account',
    'terminateGroup ends a new group for everyone: listed isTerminated for each member, sends to it refused',
    async (t) => {
      const { a, b } = fixtures(t)
      const created = await call(t.url, 'updateGroup', { account: a, name: 'contract terminate', members: [b] })
      const groupId = (created.result as { groupId: string }).groupId
      expect((await call(t.url, 'terminateGroup', { account: a, groupId })).error).toBeUndefined()
      for (const account of [a, b]) {
        const listed = (await call(t.url, 'listGroups', { account, groupId })).result as TerminatedGroup[]
        expect(listed[0]?.isTerminated).toBe(true)
      }
      expect((await call(t.url, 'send', { account: a, groupId, message: 'after the end' })).error).toBeDefined()
    },
    {
      since: '0.14.8',
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        const id = await c.backend(a).createGroup('contract terminate (client)', [b])
        expect(await c.backend(a).terminateGroup(id)).toBe(true)
        expect((await c.backend(a).listGroups(id))[0]?.isTerminated).toBe(true)
      },
    },
  )

  defineCase(
    'any',
    'sendAdminDelete is a method from signal-cli 0.14.0 on: an older daemon answers -32601 Method not implemented',
    async (t) => {
      const params = { groupId: unknownGroupId(), targetAuthor: '+15555550100', targetTimestamp: 1 }
      if (!versionAtLeast(t.version, '0.14.0')) {
        await expectCallError(t.url, 'sendAdminDelete', params, -32601, 'Method not implemented')
        return
      }
      const answer = (await call(t.url, 'sendAdminDelete', params)).error as { code: number } | undefined
      expect(answer?.code).not.toBe(-32601)
    },
  )

  defineCase(
    'account',
    "sendAdminDelete by a group's admin: the send result shape; the client names author and timestamp",
    async (t) => {
      const { a, b } = fixtures(t)
      const created = await call(t.url, 'updateGroup', { account: a, name: 'contract admin delete', members: [b] })
      const groupId = (created.result as { groupId: string }).groupId
      const sent = await call(t.url, 'send', { account: b, groupId, message: 'a message to delete' })
      const targetTimestamp = (sent.result as { timestamp: number }).timestamp
      const answer = await call(t.url, 'sendAdminDelete', { account: a, groupId, targetAuthor: b, targetTimestamp })
      expect(answer.error).toBeUndefined()
      expect(Object.keys(answer.result as object).sort()).toEqual(['results', 'timestamp'])
    },
    {
      since: '0.14.0',
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        const id = await c.backend(a).createGroup('contract admin delete (client)', [b])
        const timestamp = (await c.backend(b).sendGroupMessage(id, 'a message to delete')).timestamp
        expect(await c.backend(a).adminDelete(id, { author: b, timestamp })).toBe(true)
      },
    },
  )
}

/** A group as listGroups shows it, with its banned people. */
type BannedGroup = Group & { banned: Member[] }
/** A group whose members carry their labels (0.14.1+). */
type LabelledGroup = Omit<Group, 'members'> & { members: (Member & { label?: string })[] }
/** A group as listGroups shows it from signal-cli 0.14.8 (ended for everyone or not). */
type TerminatedGroup = Group & { isTerminated: boolean }
