/**
 * Admins and permissions of a toy group, as Signal's servers enforce them on a group change: only
 * an admin makes or unmakes admins or changes a permission; with `ONLY_ADMINS`, only an admin adds
 * members (`addMember`) or changes the name, description or timer (`editDetails`). signal-cli
 * makes admins only of current members (others are skipped), and reports the servers' refusal of
 * a change as an IOException: -32603 `Failed to send message: …`.
 * @see reference `signal-cli-wire.md` §4.2–4.3; AsamK/signal-cli `GroupHelper.updateGroupV2`
 */
import { internalError } from '../rpc-failure.ts'
import type { GroupPermission, ToyGroup, ToySignalState } from '../state.ts'
import { listParam, stringParam } from './params.ts'
import { resolveRecipient } from './targets.ts'

/** What an `updateGroup` asks of admins and permissions. */
export interface RoleChange {
  readonly admins: readonly string[]
  readonly removeAdmins: readonly string[]
  readonly addMember: GroupPermission | undefined
  readonly editDetails: GroupPermission | undefined
}

/** A permission value signal-cli accepts (checked before, group-admin.ts), as listGroups names it. */
function permission(params: Record<string, unknown>, name: string): GroupPermission | undefined {
  const value = stringParam(params, name)
  if (value === undefined) return undefined
  return value === 'only-admins' || value === 'onlyAdmins' ? 'ONLY_ADMINS' : 'EVERY_MEMBER'
}

export function roleChangeOf(state: ToySignalState, params: Record<string, unknown>): RoleChange {
  return {
    admins: listParam(params, 'admin', 'admins').map((m) => resolveRecipient(state, m)),
    removeAdmins: listParam(params, 'removeAdmin', 'removeAdmins').map((m) => resolveRecipient(state, m)),
    addMember: permission(params, 'setPermissionAddMember'),
    editDetails: permission(params, 'setPermissionEditDetails'),
  }
}

/** True when the change touches admins or permissions. */
export const changesRoles = (c: RoleChange): boolean =>
  c.admins.length > 0 || c.removeAdmins.length > 0 || c.addMember !== undefined || c.editDetails !== undefined

const onlyAdmins = (p: GroupPermission): boolean => p === 'ONLY_ADMINS'

/**
 * Refuses a change `account` may not make in `group` (the servers' 403).
 * @throws RpcFailure -32603
 */
export function checkAllowed(
  group: ToyGroup,
  account: string,
  change: {
    readonly roles: RoleChange
    readonly addsMembers: boolean
    readonly editsDetails: boolean
    /** Removals, bans and link changes: an admin's, whatever the permissions. */
    readonly adminsOnly?: boolean
  },
): void {
  if (group.admins.has(account)) return
  if (
    changesRoles(change.roles) ||
    change.adminsOnly === true ||
    (change.addsMembers && onlyAdmins(group.permissions.addMember)) ||
    (change.editsDetails && onlyAdmins(group.permissions.editDetails))
  )
    throw internalError(
      'Failed to send message: [403] Authorization failed! (AuthorizationFailedException)',
      'UnexpectedErrorException',
    )
}

/** Applies the change: admins only among current members, as signal-cli does. */
export function applyRoles(group: ToyGroup, change: RoleChange): void {
  for (const m of change.admins) if (group.members.includes(m)) group.admins.add(m)
  for (const m of change.removeAdmins) group.admins.delete(m)
  if (change.addMember !== undefined) group.permissions = { ...group.permissions, addMember: change.addMember }
  if (change.editDetails !== undefined) group.permissions = { ...group.permissions, editDetails: change.editDetails }
}
