/**
 * `listGroups`, `updateGroup` (create when no groupId) and `quitGroup`, with v0.14.1+ result shapes.
 * @see reference `signal-cli-wire.md` §4.2–4.4
 */
import { incomingMessage, type MessageContent } from '../envelopes.ts'
import { groupRequests } from '../group-requests.ts'
import { internalError, userError } from '../rpc-failure.ts'
import type { ToyGroup, ToySignalState } from '../state.ts'
import type { MethodContext, MethodDefinition } from './context.ts'
import { listParam, stringParam } from './params.ts'
import { resultEntry } from './send-results.ts'
import { checkGroupId, findGroup, resolveRecipient } from './targets.ts'

/** Most groups one toy holds (configured and created). */
export const MAX_GROUPS = 1000

function address(state: ToySignalState, number: string) {
  return { number, uuid: state.uuidOf(number) }
}

/** One group as listGroups shows it to `account`. */
export function groupView(state: ToySignalState, group: ToyGroup, account: string) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    isMember: group.members.includes(account),
    isBlocked: false,
    messageExpirationTime: 0,
    members: group.members.map((m) => ({ ...address(state, m), isAdmin: group.admins.has(m) })),
    pendingMembers: groupRequests(group).pending.map((m) => address(state, m)),
    requestingMembers: groupRequests(group).requesting.map((m) => address(state, m)),
    admins: group.members.filter((m) => group.admins.has(m)).map((m) => address(state, m)),
    banned: [],
    permissionAddMember: 'EVERY_MEMBER',
    permissionEditDetails: 'ONLY_ADMINS',
    permissionSendMessage: 'EVERY_MEMBER',
    groupInviteLink: null,
  }
}

/** `listGroups`: every group the account belongs or belonged to; unknown ids in the filter are skipped. */
export const listGroupsMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const filter = listParam(ctx.params, 'groupId', 'groupIds').map(checkGroupId)
    const visible = [...ctx.state.groups.values()].filter((g) => g.members.includes(ctx.account) || g.formerMembers.has(ctx.account))
    return visible.filter((g) => filter.length === 0 || filter.includes(g.id)).map((g) => groupView(ctx.state, g, ctx.account))
  },
}

const LINK_STATES = new Set(['enabled', 'enabled-with-approval', 'enabledWithApproval', 'disabled'])
const PERMISSIONS = new Set(['every-member', 'everyMember', 'only-admins', 'onlyAdmins'])

/**
 * Rejects an unknown `link` or permission value as signal-cli does, before any group lookup. Valid
 * values are accepted but not applied: the toy's groups keep their fixed permissions and no link.
 */
function checkLinkAndPermissions(params: Record<string, unknown>): void {
  const link = stringParam(params, 'link')
  if (link !== undefined && !LINK_STATES.has(link)) throw userError(`Invalid group link state: ${link}`)
  for (const flag of ['setPermissionAddMember', 'setPermissionEditDetails', 'setPermissionSendMessages']) {
    const value = stringParam(params, flag)
    if (value !== undefined && !PERMISSIONS.has(value)) throw userError(`Invalid group permission: ${value}`)
  }
}

/** Announces a group change to the other members, as the group-update message a real client sends. */
function announce(ctx: MethodContext, group: ToyGroup, recipients: readonly string[]) {
  const timestamp = ctx.state.nextTimestamp()
  const content: MessageContent = {
    timestamp,
    message: null,
    group: { id: group.id, name: group.name, revision: group.revision, type: 'UPDATE' },
    longTextId: '',
  }
  const self = address(ctx.state, ctx.account)
  const now = ctx.state.now()
  for (const member of recipients) {
    if (member !== ctx.account && ctx.state.isAccount(member)) ctx.hub.deliver(incomingMessage(member, self, content, now))
  }
  // updateGroup results carry no groupId (unlike send results).
  const results = recipients.filter((m) => m !== ctx.account).map((m) => resultEntry(ctx.state, m, 'SUCCESS', {}))
  return { timestamp, results }
}

/** `updateGroup`: creates a group (`{groupId, timestamp, results}`), or changes one (`{}` when nothing changed). */
export const updateGroupMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const rawId = stringParam(ctx.params, 'groupId')
    const name = stringParam(ctx.params, 'name')
    const description = stringParam(ctx.params, 'description')
    const add = listParam(ctx.params, 'member', 'members').map((m) => resolveRecipient(ctx.state, m))
    const remove = listParam(ctx.params, 'removeMember', 'removeMembers').map((m) => resolveRecipient(ctx.state, m))
    checkLinkAndPermissions(ctx.params)
    if (rawId === undefined) {
      // A bound of the toy (a real account has no such limit): a runaway test cannot grow it forever.
      if (ctx.state.groups.size >= MAX_GROUPS) throw userError(`Failed to create group: the toy holds at most ${MAX_GROUPS} groups`)
      const group = ctx.state.createGroup(name ?? '', add, ctx.account)
      if (description !== undefined) group.description = description
      return { groupId: group.id, ...announce(ctx, group, group.members) }
    }
    const group = findGroup(ctx.state, ctx.account, rawId)
    if (!group.members.includes(ctx.account)) throw userError(`User is not a member in group: ${group.name} (${group.id})`)
    const before = JSON.stringify([group.name, group.description, group.members])
    const audience = [...new Set([...group.members, ...add])]
    if (name !== undefined) group.name = name
    if (description !== undefined) group.description = description
    for (const m of add) {
      if (!group.members.includes(m)) group.members.push(m)
      group.formerMembers.delete(m)
    }
    for (const m of remove) {
      if (!group.members.includes(m)) continue
      group.members = group.members.filter((x) => x !== m)
      group.admins.delete(m)
      group.formerMembers.add(m)
    }
    if (JSON.stringify([group.name, group.description, group.members]) === before) return {}
    group.revision += 1
    return announce(ctx, group, audience)
  },
}

/** `quitGroup`: leaves the group (it stays listed with `isMember:false`); `{}` when already out. */
export const quitGroupMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const rawId = stringParam(ctx.params, 'groupId') ?? listParam(ctx.params, 'groupId', 'groupIds')[0]
    // signal-cli dereferences the missing id: a NullPointerException with a null message.
    if (rawId === undefined) throw internalError('null', 'NullPointerException')
    let group: ToyGroup
    try {
      group = findGroup(ctx.state, ctx.account, rawId)
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('Group not found')) throw userError(`Failed to send to group: ${error.message}`)
      throw error
    }
    if (!group.members.includes(ctx.account)) return {}
    group.members = group.members.filter((m) => m !== ctx.account)
    group.formerMembers.add(ctx.account)
    if (group.admins.delete(ctx.account) && group.admins.size === 0 && group.members[0] !== undefined) {
      // The toy hands adminship on instead of demanding `admin`, so a group never ends without one.
      group.admins.add(group.members[0])
    }
    group.revision += 1
    return announce(ctx, group, group.members)
  },
}
