/**
 * `listGroups` with the result shape of the version played (`isAdmin` on members from 0.14.1;
 * changes are in group-admin.ts).
 * @see reference `signal-cli-wire.md` §4.2
 */
import type { ToyGroup, ToySignalState } from '../state.ts'
import type { MethodDefinition } from './context.ts'
import { listParam } from './params.ts'
import { checkGroupId, seesGroup } from './targets.ts'
import { inviteLinkOf } from './group-links.ts'

export { MAX_GROUPS, quitGroupMethod, updateGroupMethod } from './group-admin.ts'

function address(state: ToySignalState, number: string) {
  return { number, uuid: state.uuidOf(number) }
}

/** One group as listGroups shows it to `account`. */
export function groupView(state: ToySignalState, group: ToyGroup, account: string) {
  return {
    id: group.id,
    name: group.name,
    description: group.legacy === true ? null : group.description,
    isMember: group.members.includes(account),
    isBlocked: false,
    // signal-cli 0.14.8 lists whether an admin ended the group (terminateGroup).
    ...(state.version.atLeast('0.14.8') ? { isTerminated: group.terminated === true } : {}),
    messageExpirationTime: group.expiration,
    // `isAdmin` arrived in 0.14.1 (member labels); before, admins are only in `admins`.
    // Member labels came with it (JsonGroupMember's labelEmoji and label, each only when set).
    members: group.members.map((m) =>
      state.version.atLeast('0.14.1')
        ? { ...address(state, m), isAdmin: group.admins.has(m), ...group.labels.get(m) }
        : address(state, m),
    ),
    pendingMembers: group.pending.map((m) => address(state, m)),
    requestingMembers: group.requesting.map((m) => address(state, m)),
    admins: group.members.filter((m) => group.admins.has(m)).map((m) => address(state, m)),
    banned: [...group.banned].map((m) => address(state, m)),
    // A group made by signal-cli starts with every member (GroupsV2Operations.createNewGroup:
    // attributes MEMBER); `updateGroup` may set only admins (group-roles.ts).
    permissionAddMember: group.permissions.addMember,
    permissionEditDetails: group.permissions.editDetails,
    permissionSendMessage: 'EVERY_MEMBER',
    groupInviteLink: inviteLinkOf(group),
  }
}

/** `listGroups`: every group the account belongs or belonged to; unknown ids in the filter are skipped. */
export const listGroupsMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const filter = listParam(ctx.params, 'groupId', 'groupIds').map(checkGroupId)
    const visible = [...ctx.state.groups.values()].filter((g) => seesGroup(g, ctx.account))
    return visible
      .filter((g) => filter.length === 0 || filter.includes(g.id))
      .map((g) => groupView(ctx.state, g, ctx.account))
  },
}
