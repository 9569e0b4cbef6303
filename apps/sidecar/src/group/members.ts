/**
 * A group's members, and this sidecar's own account among them, read from a `listGroups` answer
 * (which names members as `{number, uuid}` objects, or bare numbers in old versions). Pure: the
 * listing in, members out.
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import type { MemberId } from './roster.ts'

type Listed = NonNullable<GroupListing[number]['members']>[number]

/** A listed member, and whether the group lists it among its admins (roles hang off this). */
export interface Member extends MemberId {
  readonly admin: boolean
}

/** The key of a member or a message's source: its UUID, else its number. */
export const sourceKey = (uuid: string | undefined | null, number: string | undefined | null): string =>
  uuid ?? number ?? ''

const idOf = (m: Listed): MemberId =>
  typeof m === 'string' ? { number: m } : { uuid: m.uuid ?? undefined, number: m.number ?? undefined }

const present = (v: string | undefined): v is string => v !== undefined && v !== ''
const sameAccount = (a: MemberId, b: MemberId): boolean =>
  (present(a.uuid) && a.uuid === b.uuid) || (present(a.number) && a.number === b.number)

/** The members one group entry lists (empty when it lists none), each with its admin flag. */
export function membersIn(entry: GroupListing[number] | undefined): Member[] {
  const admins = (entry?.admins ?? []).map(idOf)
  return (entry?.members ?? []).map((m) => {
    const id = idOf(m)
    return { ...id, admin: admins.some((a) => sameAccount(a, id)) }
  })
}

/** The listed members of `groupId` (empty when the group is not listed). */
export function membersOf(groups: GroupListing, groupId: string): Member[] {
  return membersIn(groups.find((g) => g.id === groupId))
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

/** This account's key ({@link sourceKey}) in the listing, by bare number or member object; undefined when unlisted. */
export function selfKeyIn(groups: GroupListing, account: string | undefined): string | undefined {
  if (account === undefined) return undefined
  for (const g of groups) {
    for (const m of g.members ?? []) {
      if (m === account) return account
      if (typeof m !== 'string' && m.number === account) return sourceKey(m.uuid, m.number)
    }
  }
  return undefined
}
