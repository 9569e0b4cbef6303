/**
 * What the library reads of one group in a `listGroups` answer: the people by number and their
 * status (member, invited, requesting), and whether this account is in or invited. Pure.
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import type { StoredMember } from '../replica/doc-table.ts'
import { isDeletedGroup } from './group-tag.ts'

export type Group = GroupListing[number]

const numberOf = (m: NonNullable<Group['members']>[number]): string | undefined =>
  typeof m === 'string' ? m : (m.number ?? undefined)

/** The numbers of a member list (members without a visible number left out). */
export const numbersOf = (list: Group['members']): string[] =>
  (list ?? []).map(numberOf).filter((n): n is string => n !== undefined)

/** Everyone the group names, each once, with the first status it is named under. */
export function peopleIn(g: Group): StoredMember[] {
  const seen = new Set<string>()
  const out: StoredMember[] = []
  const push = (list: Group['members'], status: StoredMember['status']) => {
    for (const n of numbersOf(list))
      if (!seen.has(n)) {
        seen.add(n)
        out.push({ number: n, status })
      }
  }
  push(g.members, 'member')
  push(g.pendingMembers, 'invited')
  push(g.requestingMembers, 'requesting')
  return out
}

export const isMemberOf = (g: Group, you: string): boolean => g.isMember === true || numbersOf(g.members).includes(you)
export const isInvitedTo = (g: Group, you: string): boolean => numbersOf(g.pendingMembers).includes(you)

/**
 * The group's document was deleted for everyone, as `you` sees it: an admin ended the group
 * (`isTerminated`, signal-cli 0.14.8+), or removed `you` from a group marked deleted (older daemons).
 */
export const isDeletedFor = (g: Group, you: string): boolean =>
  g.isTerminated === true || (!isMemberOf(g, you) && isDeletedGroup(g.description))
