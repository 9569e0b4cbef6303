/**
 * A group's members, and this sidecar's own account among them, from a `listGroups` answer (which
 * names members as `{number, uuid}` objects, or bare numbers in old versions).
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import type { MemberId } from './roster.ts'

type Member = NonNullable<GroupListing[number]['members']>[number]

const idOf = (m: Member): MemberId =>
  typeof m === 'string' ? { number: m } : { uuid: m.uuid ?? undefined, number: m.number ?? undefined }

/** The listed members of `groupId` (empty when the group is not listed). */
export function membersOf(groups: GroupListing, groupId: string): MemberId[] {
  return (groups.find((g) => g.id === groupId)?.members ?? []).map(idOf)
}

/** This account by number, with its ACI when some group lists it. */
export function selfIn(groups: GroupListing, account: string | undefined): MemberId {
  if (account === undefined) return {}
  for (const g of groups) {
    for (const m of g.members ?? []) {
      const id = idOf(m)
      if (id.number === account) return id
    }
  }
  return { number: account }
}
