import type { GroupMembership } from '../signal/port.ts'

/** The verdict on a group's membership before a post. */
export type MembershipVerdict =
  | { ok: true }
  | { ok: false; reason: 'unknown-group' | 'not-member' | 'stranger' | 'unverifiable' }

/**
 * Only the loop's account and the operators may be in the group, as members, invitees or
 * requesters. A member whose number is hidden cannot be verified, so it fails closed too.
 */
export function checkMembership(m: GroupMembership | undefined, allowed: ReadonlySet<string>): MembershipVerdict {
  if (m === undefined) return { ok: false, reason: 'unknown-group' }
  if (!m.isMember) return { ok: false, reason: 'not-member' }
  for (const member of [...m.members, ...m.pendingMembers, ...m.requestingMembers]) {
    if (member.number === null) return { ok: false, reason: 'unverifiable' }
    if (!allowed.has(member.number)) return { ok: false, reason: 'stranger' }
  }
  return { ok: true }
}
