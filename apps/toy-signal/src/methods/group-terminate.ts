/**
 * `terminateGroup` (signal-cli 0.14.8, "End group" in the apps): an admin ends a group for everyone.
 * The group stays listed (`isTerminated: true`), its members stay members and keep what they have,
 * but nothing more can be sent to it or changed in it; the members hear of it as a group update.
 * A toy playing an older release answers -32601 (`since`, dispatch.ts), as the real 0.13.19 does.
 * @see AsamK/signal-cli pull request #2098 (CHANGELOG 0.14.8: "Add terminateGroup command")
 */
import { internalError, userError } from '../rpc-failure.ts'
import type { ToyGroup } from '../state.ts'
import { announce } from './group-admin.ts'
import type { MethodDefinition } from './context.ts'
import { listParam, stringParam } from './params.ts'
import { checkAllowed, roleChangeOf } from './group-roles.ts'
import { findGroup } from './targets.ts'
import { failIfUnreachable } from './unreachable.ts'

/** The first release with `terminateGroup`. */
export const TERMINATE_GROUP_SINCE = '0.14.8'

/** Refuses a send or change to an ended group, as signal-cli 0.14.8 refuses it locally. @throws RpcFailure -1 */
export function refuseIfTerminated(group: ToyGroup): void {
  if (group.terminated === true) throw userError(`Group is terminated: ${group.name} (${group.id})`)
}

/** `terminateGroup {groupId}`: `{timestamp, results}` of the announcement; `{}` when already ended. */
export const terminateGroupMethod: MethodDefinition = {
  routing: 'account',
  since: TERMINATE_GROUP_SINCE,
  run(ctx) {
    const rawId = stringParam(ctx.params, 'groupId') ?? listParam(ctx.params, 'groupId', 'groupIds')[0]
    // Like quitGroup, the missing id is dereferenced.
    if (rawId === undefined) throw internalError('null', 'NullPointerException')
    const group = findGroup(ctx.state, ctx.account, rawId)
    if (!group.members.includes(ctx.account))
      throw userError(`User is not a member in group: ${group.name} (${group.id})`)
    if (group.terminated === true) return {}
    // Only an admin may end a group: anyone else meets the servers' 403.
    checkAllowed(group, ctx.account, {
      roles: roleChangeOf(ctx.state, {}),
      addsMembers: false,
      editsDetails: false,
      adminsOnly: true,
    })
    failIfUnreachable(ctx, 'upload')
    group.terminated = true
    group.revision += 1
    return announce(ctx, group, [...new Set([...group.members, ...group.pending])])
  },
}
