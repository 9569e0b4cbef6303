/**
 * Group membership as the receive path checks it: a group body is read only when the daemon says
 * it came from a current member of the group (or from this account's own devices). signal-cli
 * should never deliver anything else, but the sidecar does not rely on that: what it accepts from
 * a group must come from someone the group admits.
 *
 * Members come from the sidecar's one membership owner (group/membership.ts): the listing read at
 * start and every listing taken since (so a removed member is refused within its `refreshMs`). A
 * body from a source not in the list is held (bounded, in order) while this check asks the owner
 * to list the group now, at most every `minRefreshGapMs`: a member added a moment ago is read,
 * anyone else dropped and counted (`non-member`).
 * @see docs/sidecar.md §4.6
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { sourceKey } from '../group/members.ts'
import type { GroupMembership } from '../group/membership.ts'

export { sourceKey } from '../group/members.ts'

/** Who the daemon says sent a message. */
export interface MessageSource {
  readonly origin: 'data' | 'sync'
  readonly sourceNumber: string | undefined
  readonly sourceUuid: string | undefined
}

export interface MembershipOptions {
  /** The owner of the groups' listings: read at creation, then told of every listing. */
  readonly membership: Pick<GroupMembership, 'groups' | 'subscribe' | 'ask' | 'selfKey' | 'learnSelf'>
  /** The groups checked (every other group is not this module's business). */
  readonly groupIds: readonly string[]
  /**
   * True for a group served since start (a document created or accepted at run time): it is
   * checked too, its members read with the first body that comes from it.
   */
  readonly serves?: (groupId: string) => boolean
  readonly minRefreshGapMs: number
  /** Bodies held per group while its members are listed again; beyond it they are dropped. */
  readonly maxHeld: number
  readonly now: () => number
  /** Counts a body refused: `non-member`, or `membership-backlog` when too many wait. */
  readonly dropped: (reason: 'non-member' | 'membership-backlog') => void
  /** A listing asked for an unknown source failed. */
  readonly onListFailed: (error: unknown) => void
}
export interface Membership {
  /** Runs `handle` now for a member, after a fresh listing for an unknown source, never for a non-member. */
  admit(groupId: string, source: MessageSource, handle: () => void): void
  /** The group's members, each by {@link sourceKey}. */
  members(groupId: string): readonly string[]
  /** This account's key, once known (from the listing, or from a sync copy of our own send). */
  self(): string | undefined
  dispose(): void
}

interface GroupMembers {
  /** False while the daemon listed no `members` at all: nothing to check against, so nothing is refused. */
  listed: boolean
  keys: string[]
  numbers: Set<string>
  uuids: Set<string>
  listedAt: number
  refreshing: boolean
  held: { source: MessageSource; handle: () => void }[]
}

const memberKeys = (
  listing: GroupListing[number] | undefined,
): { keys: string[]; numbers: Set<string>; uuids: Set<string> } => {
  const numbers = new Set<string>()
  const uuids = new Set<string>()
  const keys: string[] = []
  for (const m of listing?.members ?? []) {
    if (typeof m === 'string') {
      numbers.add(m)
      keys.push(m)
    } else {
      if (typeof m.number === 'string') numbers.add(m.number)
      if (typeof m.uuid === 'string') uuids.add(m.uuid)
      keys.push(sourceKey(m.uuid, m.number))
    }
  }
  return { keys, numbers, uuids }
}

export function createMembership(o: MembershipOptions): Membership {
  const groups = new Map<string, GroupMembers>()
  const initial = o.membership.groups()
  for (const groupId of o.groupIds) {
    const entry = initial.find((g) => g.id === groupId)
    groups.set(groupId, {
      listed: entry?.members !== undefined,
      ...memberKeys(entry),
      listedAt: o.now(),
      refreshing: false,
      held: [],
    })
  }
  let disposed = false
  const pendingTimers = new Set<ReturnType<typeof setTimeout>>()

  const isMember = (g: GroupMembers, s: MessageSource): boolean =>
    !g.listed ||
    s.origin === 'sync' ||
    (s.sourceUuid !== undefined && g.uuids.has(s.sourceUuid)) ||
    (s.sourceNumber !== undefined && g.numbers.has(s.sourceNumber))

  function update(listing: GroupListing, now: number): void {
    for (const [groupId, g] of groups) {
      const entry = listing.find((x) => x.id === groupId)
      if (entry === undefined) continue
      const keys = memberKeys(entry)
      g.listed = entry.members !== undefined
      g.keys = keys.keys
      g.numbers = keys.numbers
      g.uuids = keys.uuids
      g.listedAt = now
    }
  }

  function release(g: GroupMembers): void {
    const held = g.held
    g.held = []
    for (const h of held) {
      if (isMember(g, h.source)) h.handle()
      else o.dropped('non-member')
    }
  }

  // Every listing the owner takes (periodic, or asked by any part) updates the checked groups.
  const unsubscribe = o.membership.subscribe((listed) => update(listed.listing, o.now()))

  function refresh(g: GroupMembers, groupId: string): void {
    o.membership
      .ask(groupId)
      .then(
        () => undefined,
        (error: unknown) => {
          if (disposed) return
          g.listedAt = o.now() // a failing daemon is not asked again for every body
          o.onListFailed(error)
        },
      )
      .finally(() => {
        g.refreshing = false
        if (!disposed) release(g)
      })
  }

  return {
    members: (groupId) => groups.get(groupId)?.keys ?? [],
    self: () => o.membership.selfKey(),
    admit(groupId, source, handle) {
      if (source.origin === 'sync' && (source.sourceUuid ?? source.sourceNumber) !== undefined)
        o.membership.learnSelf(sourceKey(source.sourceUuid, source.sourceNumber))
      let g = groups.get(groupId)
      if (g === undefined && o.serves?.(groupId) === true) {
        // Served since start and never listed here: the first body waits for a listing.
        g = {
          listed: true,
          keys: [],
          numbers: new Set(),
          uuids: new Set(),
          listedAt: Number.NEGATIVE_INFINITY,
          refreshing: false,
          held: [],
        }
        groups.set(groupId, g)
      }
      if (g === undefined) return handle()
      if (isMember(g, source)) return handle()
      // An unknown source waits (in order) for a fresh listing, made at most every minRefreshGapMs.
      if (g.held.length >= o.maxHeld) return o.dropped('membership-backlog')
      g.held.push({ source, handle })
      if (g.refreshing) return
      g.refreshing = true
      const wait = Math.max(0, g.listedAt + o.minRefreshGapMs - o.now())
      if (wait === 0) return refresh(g, groupId)
      const t = setTimeout(() => {
        pendingTimers.delete(t)
        if (!disposed) refresh(g, groupId)
      }, wait)
      pendingTimers.add(t)
    },
    dispose() {
      disposed = true
      unsubscribe()
      for (const t of pendingTimers) clearTimeout(t)
      for (const g of groups.values()) g.held = []
    },
  }
}
