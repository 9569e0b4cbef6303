/**
 * Bans and invite links of a toy group, as Signal's servers keep them: `updateGroup` with `ban`,
 * `unban`, `link` (`enabled`, `enabled-with-approval`, `disabled`) and `resetLink`, and `joinGroup`
 * by a link. A banned person cannot join by the link (the server answers its 403 `banned`); an
 * admin who adds them back lifts the ban (signal-cli's `addMembers` sends the unban with the add).
 * Bans, links and removals are admins' changes (group-roles.ts refuses them to others).
 * @see AsamK/signal-cli `GroupHelper.updateGroupV2`, `GroupHelper.joinGroup`, `JoinGroupCommand`
 */
import { internalError, RpcFailure, RPC_CODES, userError } from '../rpc-failure.ts'
import type { GroupLinkState, ToyGroup, ToySignalState } from '../state.ts'
import type { MethodContext, MethodDefinition } from './context.ts'
import { flagParam, listParam, stringParam } from './params.ts'
import { resolveRecipient } from './targets.ts'

/** What an `updateGroup` asks of bans and the link. */
export interface LinkChange {
  readonly ban: readonly string[]
  readonly unban: readonly string[]
  readonly link: GroupLinkState | undefined
  readonly resetLink: boolean
}

/** Reads the change; numbers are checked as every member list is (-1 `Invalid phone number …`). */
export function linkChangeOf(ctx: MethodContext): LinkChange {
  const numbers = (singular: string, plural: string) =>
    listParam(ctx.params, singular, plural).map((m) => resolveRecipient(ctx.state, m, ctx.account))
  const link = stringParam(ctx.params, 'link')
  return {
    ban: numbers('ban', 'bans'),
    unban: numbers('unban', 'unbans'),
    // Valid values were checked before (group-admin.ts).
    link:
      link === undefined
        ? undefined
        : link === 'enabled'
          ? 'enabled'
          : link === 'disabled'
            ? 'disabled'
            : 'enabled-with-approval',
    resetLink: flagParam(ctx.params, 'resetLink'),
  }
}

/** True when the change touches bans or the link (an admin's change). */
export const changesLink = (c: LinkChange): boolean =>
  c.ban.length > 0 || c.unban.length > 0 || c.link !== undefined || c.resetLink

/** Applies it: banning also refuses a pending request to join, as Signal's ban does. */
export function applyLinkChange(state: ToySignalState, group: ToyGroup, c: LinkChange): void {
  for (const m of c.ban) {
    group.banned.add(m)
    group.requesting = group.requesting.filter((x) => x !== m)
    state.uuidOf(m)
  }
  for (const m of c.unban) group.banned.delete(m)
  if (c.resetLink) group.linkPassword = state.randomId(16)
  if (c.link !== undefined) group.link = c.link
}

/** The group's invite link as listGroups shows it; null while the link is off. */
export function inviteLinkOf(group: ToyGroup): string | null {
  if (group.link === 'disabled') return null
  const bytes = Buffer.concat([Buffer.from(group.id, 'base64'), Buffer.from(group.linkPassword, 'base64url')])
  return `https://signal.group/#${bytes.toString('base64url')}`
}

const GROUP_ID_BYTES = 32

/** The server's 403 on a link, as signal-cli words it (libsignal-service's reason). */
const inactive = (reason: 'BANNED' | 'UNKNOWN') =>
  userError(`Group link is not valid: Group link inactive (reason: ${reason})`)

/** The group and password a link names, or undefined when it is no group link at all. */
function readLink(uri: string): { groupId: string; password: string } | undefined {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return undefined
  }
  if (!['https:', 'sgnl:'].includes(url.protocol.toLowerCase()) || url.hostname.toLowerCase() !== 'signal.group')
    return undefined
  const bytes = Buffer.from(url.hash.slice(1), 'base64url')
  // The toy's own link form (a real link is a protobuf of the master key and password).
  if (bytes.length <= GROUP_ID_BYTES) throw userError('Group link is invalid: No reference was in the uri')
  return {
    groupId: bytes.subarray(0, GROUP_ID_BYTES).toString('base64'),
    password: bytes.subarray(GROUP_ID_BYTES).toString('base64url'),
  }
}

/** `joinGroup {uri}`: joins by an invite link, or asks to when the link needs an admin's approval. */
export function joinGroupMethod(announce: Announce): MethodDefinition {
  return {
    routing: 'account',
    run(ctx) {
      const uri = stringParam(ctx.params, 'uri')
      // Measured on 0.13.19: the missing uri reaches GroupInviteLinkUrl's URI parser.
      if (uri === undefined)
        throw internalError('Cannot invoke "String.length()" because "this.input" is null', 'NullPointerException')
      const named = readLink(uri)
      if (named === undefined) throw userError('Link is not a signal group invitation link')
      if (ctx.faults.networkLost())
        throw new RpcFailure(RPC_CODES.ioError, 'Failed to send message: Closed unexpectedly (SocketException)')
      const group = ctx.state.groups.get(named.groupId)
      if (group === undefined || group.link === 'disabled' || group.linkPassword !== named.password)
        throw inactive('UNKNOWN')
      if (group.banned.has(ctx.account)) throw inactive('BANNED')
      if (group.requesting.includes(ctx.account))
        throw userError('Pending admin approval: You have already requested to join the group.')
      if (group.members.includes(ctx.account)) return { timestamp: 0, results: [], groupId: group.id }
      group.formerMembers.delete(ctx.account)
      group.revision += 1
      if (group.link === 'enabled-with-approval') {
        group.requesting.push(ctx.account)
        // Only requested: signal-cli sends no update and answers timestamp 0.
        return { timestamp: 0, results: [], groupId: group.id, onlyRequested: true }
      }
      group.pending = group.pending.filter((x) => x !== ctx.account)
      group.members.push(ctx.account)
      return { ...announce(ctx, group, group.members), groupId: group.id }
    },
  }
}

/** group-admin.ts's announcement of a change to the members' streams. */
export type Announce = (
  ctx: MethodContext,
  group: ToyGroup,
  recipients: readonly string[],
) => { timestamp: number; results: unknown[] }
