/**
 * Who may edit a document: the one place the role rule is written. A document group "has roles"
 * when only its admins may edit its details (`permissionEditDetails: ONLY_ADMINS`, set when the
 * document is created); then its admins are editors, the
 * non-admins its description names commenters (roles/commenters.ts), and every other member a viewer. In a group
 * without roles (made before roles existed, or by hand) every member is an editor. Signal's
 * servers enforce who may change an admin flag or a permission, so a viewer cannot make itself
 * an editor. Pure: a listing entry in, roles out.
 * @see docs/decisions/0020-document-roles.md, docs/documents.md "Roles"
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { commentersIn } from './commenters.ts'
import { membersIn, sourceKey, type Member } from '../group/members.ts'
import type { MemberId } from '../group/roster.ts'

export const ROLES = ['editor', 'commenter', 'viewer'] as const
export type Role = (typeof ROLES)[number]

export const isRole = (value: unknown): value is Role =>
  value === 'editor' || value === 'commenter' || value === 'viewer'

/** True when the group's listing says roles apply (only admins edit its details). */
export const hasRoles = (entry: GroupListing[number] | undefined): boolean =>
  entry?.permissionEditDetails === 'ONLY_ADMINS'

/**
 * A listed member's role in a group with or without roles; `commenters` are the numbers the
 * group's description names (roles/commenters.ts), which only admins may write when roles are on.
 */
export const roleOf = (
  member: Pick<Member, 'admin' | 'number'>,
  rolesOn: boolean,
  commenters: readonly string[] = [],
): Role => {
  if (!rolesOn || member.admin) return 'editor'
  return member.number !== undefined && commenters.includes(member.number) ? 'commenter' : 'viewer'
}

/** The roles of one group as last listed. */
export interface GroupRoles {
  /** True when the group has roles (else everyone is an editor). */
  readonly on: boolean
  /** The role of a member; in a group with roles, a non-admin the description does not name a commenter is a viewer. */
  of(who: MemberId | undefined): Role
  /** This sidecar's own role. */
  readonly self: Role
  /** The members who may write, by source key (they alone answer the group's sync requests). */
  readonly editors: readonly string[]
}

const same = (a: MemberId, b: MemberId): boolean =>
  (a.uuid !== undefined && a.uuid === b.uuid) || (a.number !== undefined && a.number === b.number)

/** Everyone is an editor: a group never listed, or listed without roles. */
export const ALL_EDITORS: GroupRoles = { on: false, of: () => 'editor', self: 'editor', editors: [] }

/** The roles `entry` gives, `self` being this sidecar's account. */
export function rolesIn(entry: GroupListing[number] | undefined, self: MemberId): GroupRoles {
  const members = membersIn(entry)
  const on = hasRoles(entry)
  const commenters = commentersIn(entry?.description)
  const of = (who: MemberId | undefined): Role => {
    if (!on) return 'editor'
    const m = who === undefined ? undefined : members.find((x) => same(x, who))
    return m === undefined ? 'viewer' : roleOf(m, on, commenters)
  }
  return {
    on,
    of,
    self: of(self),
    editors: members.filter((m) => roleOf(m, on) === 'editor').map((m) => sourceKey(m.uuid, m.number)),
  }
}
