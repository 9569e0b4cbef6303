/**
 * Group administration as signal-cli's `GroupHelper` does it over a v2 group: `updateGroup` creates
 * a group (numbers whose profile key the creator lacks become *pending*, invited members), changes
 * one (name, description, expiration timer, members added or removed, the account's own pending
 * invitation accepted first), `quitGroup` leaves it or declines the invitation, and every change is
 * delivered to the members' and invitees' streams as a `groupInfo.type: "UPDATE"` message.
 * @see reference `signal-cli-wire.md` §4.2–4.4; AsamK/signal-cli `GroupHelper.updateGroupV2`, `GroupV2Helper.leaveGroup`
 */
import { incomingMessage, type MessageContent } from '../envelopes.ts'
import { internalError, userError } from '../rpc-failure.ts'
import type { ToyGroup, ToySignalState } from '../state.ts'
import type { MethodContext, MethodDefinition } from './context.ts'
import { listParam, stringParam } from './params.ts'
import { resultEntry } from './send-results.ts'
import { findGroup, resolveRecipient } from './targets.ts'
import { failIfUnreachable } from './unreachable.ts'
import { checkGroupSize } from '../platform-limits.ts'
import { applyRoles, checkAllowed, roleChangeOf } from './group-roles.ts'
import { applyLinkChange, changesLink, linkChangeOf } from './group-links.ts'

/** Most groups one toy holds (configured and created). */
export const MAX_GROUPS = 1000

const address = (state: ToySignalState, number: string) => ({ number, uuid: state.uuidOf(number) })

/** Everyone who hears of a change: members and invitees (signal-cli's `getMembersIncludingPendingWithout`). */
const audienceOf = (group: ToyGroup): string[] => [...new Set([...group.members, ...group.pending])]

/** Announces a group change, as the group-update message a real client sends. */
export function announce(ctx: MethodContext, group: ToyGroup, recipients: readonly string[]) {
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
    if (member !== ctx.account && ctx.state.isAccount(member))
      ctx.hub.deliver(incomingMessage(member, self, content, now))
  }
  // updateGroup results carry no groupId (unlike send results).
  const results = recipients.filter((m) => m !== ctx.account).map((m) => resultEntry(ctx.state, m, 'SUCCESS', {}))
  return { timestamp, results }
}

const LINK_STATES = new Set(['enabled', 'enabled-with-approval', 'enabledWithApproval', 'disabled'])
const PERMISSIONS = new Set(['every-member', 'everyMember', 'only-admins', 'onlyAdmins'])

/**
 * Rejects an unknown `link` or permission value as signal-cli does, before any group lookup. Valid
 * link states are accepted but not applied (the toy's groups have no link); the add-member and
 * edit-details permissions are applied (group-roles.ts), the send permission is not.
 */
function checkLinkAndPermissions(params: Record<string, unknown>): void {
  const link = stringParam(params, 'link')
  if (link !== undefined && !LINK_STATES.has(link)) throw userError(`Invalid group link state: ${link}`)
  for (const flag of ['setPermissionAddMember', 'setPermissionEditDetails', 'setPermissionSendMessages']) {
    const value = stringParam(params, flag)
    if (value !== undefined && !PERMISSIONS.has(value)) throw userError(`Invalid group permission: ${value}`)
  }
}

/**
 * `memberLabel` / `memberLabelEmoji` (signal-cli 0.14.1+): the caller's own label, the other part
 * kept as it was (GroupHelper.updateGroupV2). Before 0.14.1 they are unknown params, ignored.
 */
function applyOwnLabel(ctx: MethodContext, group: ToyGroup): void {
  if (!ctx.state.version.atLeast('0.14.1')) return
  const label = stringParam(ctx.params, 'memberLabel')
  const labelEmoji = stringParam(ctx.params, 'memberLabelEmoji')
  if (label === undefined && labelEmoji === undefined) return
  const before = group.labels.get(ctx.account) ?? {}
  const next = {
    ...before,
    ...(label === undefined ? {} : { label }),
    ...(labelEmoji === undefined ? {} : { labelEmoji }),
  }
  group.labels.set(ctx.account, next)
}

/** `expiration` is read with `getInt`: a JSON integer in Java's int range, else a ClassCastException. */
function expirationParam(ctx: MethodContext): number | undefined {
  const value = ctx.params['expiration']
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
    const from =
      typeof value === 'number'
        ? Number.isInteger(value)
          ? 'java.lang.Long'
          : 'java.lang.Double'
        : typeof value === 'string'
          ? 'java.lang.String'
          : 'java.util.LinkedHashMap'
    throw internalError(`class ${from} cannot be cast to class java.lang.Integer`, 'ClassCastException')
  }
  return Math.max(0, value)
}

/** Adds numbers: a requester is approved, a known number joins, an unknown one is invited; a ban is lifted. */
function addMembers(state: ToySignalState, group: ToyGroup, adder: string, numbers: readonly string[]): void {
  for (const m of numbers) {
    if (group.members.includes(m)) continue
    group.banned.delete(m)
    if (group.requesting.includes(m)) {
      group.requesting = group.requesting.filter((x) => x !== m)
      group.members.push(m)
    } else if (group.pending.includes(m)) {
      continue
    } else if (state.knows(adder, m)) {
      group.members.push(m)
    } else {
      group.pending.push(m)
    }
    state.uuidOf(m)
    group.formerMembers.delete(m)
  }
}

function removeMembers(group: ToyGroup, numbers: readonly string[]): void {
  for (const m of numbers) {
    if (group.pending.includes(m)) group.pending = group.pending.filter((x) => x !== m)
    if (!group.members.includes(m)) continue
    group.members = group.members.filter((x) => x !== m)
    group.admins.delete(m)
    group.labels.delete(m)
    group.formerMembers.add(m)
  }
}

const snapshot = (g: ToyGroup): string =>
  JSON.stringify([
    g.name,
    g.description,
    g.expiration,
    g.members,
    g.pending,
    g.requesting,
    [...g.admins],
    g.permissions,
    [...g.banned],
    g.link,
    g.linkPassword,
    [...g.labels],
  ])

/** `updateGroup`: creates a group (`{groupId, timestamp, results}`), or changes one (`{}` when nothing changed). */
export const updateGroupMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const rawId = stringParam(ctx.params, 'groupId')
    const name = stringParam(ctx.params, 'name')
    const description = stringParam(ctx.params, 'description')
    const expiration = expirationParam(ctx)
    const add = listParam(ctx.params, 'member', 'members').map((m) => resolveRecipient(ctx.state, m))
    const remove = listParam(ctx.params, 'removeMember', 'removeMembers').map((m) => resolveRecipient(ctx.state, m))
    checkLinkAndPermissions(ctx.params)
    const roles = roleChangeOf(ctx.state, ctx.params)
    const links = linkChangeOf(ctx)
    if (rawId === undefined) {
      // A bound of the toy (a real account has no such limit): a runaway test cannot grow it forever.
      if (ctx.state.groups.size >= MAX_GROUPS)
        throw userError(`Failed to create group: the toy holds at most ${MAX_GROUPS} groups`)
      checkGroupSize(new Set([ctx.account, ...add]).size)
      if (ctx.faults.networkLost()) {
        // GroupHelper.createGroup: the v2 group cannot be made, so a v1 group (16-byte id, no
        // admins) is kept locally; its announcement then fails (measured on 0.13.19 offline).
        const v1 = ctx.state.createGroup(
          name ?? '',
          add,
          ctx.account,
          Buffer.from(ctx.state.randomId(16), 'base64url').toString('base64'),
        )
        v1.admins = new Set()
        v1.legacy = true
        failIfUnreachable(ctx, 'message')
      }
      const group = ctx.state.createGroup(name ?? '', [], ctx.account)
      addMembers(ctx.state, group, ctx.account, add)
      if (description !== undefined) group.description = description
      if (expiration !== undefined) group.expiration = expiration
      // signal-cli creates the group, then applies the rest as the creator (an admin).
      applyRoles(group, roles)
      applyLinkChange(ctx.state, group, links)
      return { groupId: group.id, ...announce(ctx, group, audienceOf(group)) }
    }
    const group = findGroup(ctx.state, ctx.account, rawId)
    const invited = group.pending.includes(ctx.account)
    if (!group.members.includes(ctx.account) && !invited)
      throw userError(`User is not a member in group: ${group.name} (${group.id})`)
    // An ended group takes no more changes (Signal's servers refuse them).
    if (group.terminated === true) throw userError(`Group is terminated: ${group.name} (${group.id})`)
    const before = snapshot(group)
    const saved: ToyGroup = {
      ...group,
      members: [...group.members],
      pending: [...group.pending],
      admins: new Set(group.admins),
      formerMembers: new Set(group.formerMembers),
      banned: new Set(group.banned),
      labels: new Map(group.labels),
    }
    // With members to remove, the banned are removed too (GroupHelper.updateGroupV2).
    const removed = remove.length > 0 ? [...new Set([...remove, ...links.ban])].filter((m) => m !== ctx.account) : []
    checkAllowed(group, ctx.account, {
      roles,
      addsMembers: add.some((m) => !group.members.includes(m)),
      editsDetails: name !== undefined || description !== undefined || expiration !== undefined,
      adminsOnly:
        changesLink(links) ||
        add.some((m) => group.banned.has(m)) ||
        removed.some((m) => group.members.includes(m) || group.pending.includes(m)),
    })
    const heardBefore = audienceOf(group)
    // An invitee's first update accepts the invitation (GroupHelper.updateGroupV2 does it first).
    if (invited) {
      group.pending = group.pending.filter((x) => x !== ctx.account)
      group.members.push(ctx.account)
    }
    if (name !== undefined) group.name = name
    if (description !== undefined) group.description = description
    if (expiration !== undefined) group.expiration = expiration
    addMembers(ctx.state, group, ctx.account, add)
    removeMembers(group, removed)
    applyRoles(group, roles)
    applyLinkChange(ctx.state, group, links)
    applyOwnLabel(ctx, group)
    // A link change is sent even when it sets the state the link has.
    if (snapshot(group) === before && links.link === undefined && !links.resetLink) return {}
    try {
      checkGroupSize(group.members.length + group.pending.length)
    } catch (error) {
      Object.assign(group, saved)
      throw error
    }
    if (ctx.faults.networkLost()) {
      // The change never reached Signal's servers: the group stays as it was.
      Object.assign(group, saved)
      failIfUnreachable(ctx, 'upload')
    }
    group.revision += 1
    // Removed people hear of their removal too.
    return announce(ctx, group, [...new Set([...heardBefore, ...audienceOf(group)])])
  },
}

/** `quitGroup`: leaves the group (it stays listed with `isMember:false`), or declines an invitation; `{}` when already out. */
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
      if (error instanceof Error && error.message.startsWith('Group not found'))
        throw userError(`Failed to send to group: ${error.message}`)
      throw error
    }
    if (group.pending.includes(ctx.account)) {
      // Declining revokes the own invitation (GroupV2Helper.leaveGroup).
      group.pending = group.pending.filter((m) => m !== ctx.account)
      group.formerMembers.add(ctx.account)
      group.revision += 1
      return announce(ctx, group, audienceOf(group))
    }
    if (!group.members.includes(ctx.account)) return {}
    const heard = audienceOf(group)
    group.members = group.members.filter((m) => m !== ctx.account)
    group.labels.delete(ctx.account)
    group.formerMembers.add(ctx.account)
    const newAdmins = listParam(ctx.params, 'admin', 'admins')
      .map((m) => resolveRecipient(ctx.state, m))
      .filter((m) => group.members.includes(m))
    for (const m of newAdmins) group.admins.add(m)
    if (group.admins.delete(ctx.account) && group.admins.size === 0 && group.members[0] !== undefined) {
      // The toy hands adminship on instead of demanding `admin`, so a group never ends without one.
      group.admins.add(group.members[0])
    }
    group.revision += 1
    return announce(ctx, group, heard)
  },
}
