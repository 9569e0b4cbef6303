/**
 * Group membership as the receive path checks it: a group body is read only when the daemon says
 * it came from a current member of the group (or from this account's own devices). signal-cli
 * should never deliver anything else, but the sidecar does not rely on that: what it accepts from
 * a group must come from someone the group admits.
 *
 * Members come from `listGroups` at start and are listed again every `refreshMs` (so a removed
 * member is refused within that time). A body from a source not in the list is held (bounded, in
 * order) while the group is listed again, at most every `minRefreshGapMs`: a member added a moment
 * ago is read, anyone else dropped and counted (`non-member`).
 * @see docs/sidecar.md §4.6
 */
import type { GroupListing } from '@e2e-col/signal-cli'

/** Who the daemon says sent a message. */
export interface MessageSource {
  readonly origin: 'data' | 'sync'
  readonly sourceNumber: string | undefined
  readonly sourceUuid: string | undefined
}

/** The key of a member or a message's source: its UUID, else its number. */
export const sourceKey = (uuid: string | undefined | null, number: string | undefined | null): string =>
  uuid ?? number ?? ''

export interface MembershipOptions {
  /** This account's number, when configured. */
  readonly account: string | undefined
  /** The groups checked (every other group is not this module's business). */
  readonly groupIds: readonly string[]
  /**
   * True for a group served since start (a document created or accepted at run time): it is
   * checked too, its members read with the first body that comes from it.
   */
  readonly serves?: (groupId: string) => boolean
  /** The listing read at start. */
  readonly initial: GroupListing
  /** Lists the account's groups (one when `groupId` is given). */
  readonly list: (groupId?: string) => Promise<GroupListing>
  readonly refreshMs: number
  readonly minRefreshGapMs: number
  /** Bodies held per group while its members are listed again; beyond it they are dropped. */
  readonly maxHeld: number
  readonly now: () => number
  /** Counts a body refused: `non-member`, or `membership-backlog` when too many wait. */
  readonly dropped: (reason: 'non-member' | 'membership-backlog') => void
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

function selfIn(listing: GroupListing, account: string | undefined): string | undefined {
  if (account === undefined) return undefined
  for (const g of listing) {
    for (const m of g.members ?? []) {
      if (m === account) return account
      if (typeof m !== 'string' && m.number === account) return sourceKey(m.uuid, m.number)
    }
  }
  return undefined
}

export function createMembership(o: MembershipOptions): Membership {
  const groups = new Map<string, GroupMembers>()
  for (const groupId of o.groupIds) {
    const entry = o.initial.find((g) => g.id === groupId)
    groups.set(groupId, {
      listed: entry?.members !== undefined,
      ...memberKeys(entry),
      listedAt: o.now(),
      refreshing: false,
      held: [],
    })
  }
  let disposed = false
  let self = selfIn(o.initial, o.account)
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

  function refresh(groupId: string, g: GroupMembers): void {
    o.list(groupId)
      .then(
        (listing) => {
          if (disposed) return
          update(listing, o.now())
        },
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

  const timer = setInterval(() => {
    o.list().then(
      (listing) => {
        if (!disposed) update(listing, o.now())
      },
      (error: unknown) => {
        if (!disposed) o.onListFailed(error)
      },
    )
  }, o.refreshMs)
  timer.unref()

  return {
    members: (groupId) => groups.get(groupId)?.keys ?? [],
    self: () => self,
    admit(groupId, source, handle) {
      if (source.origin === 'sync' && self === undefined && (source.sourceUuid ?? source.sourceNumber) !== undefined)
        self = sourceKey(source.sourceUuid, source.sourceNumber)
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
      if (wait === 0) return refresh(groupId, g)
      const t = setTimeout(() => {
        pendingTimers.delete(t)
        if (!disposed) refresh(groupId, g)
      }, wait)
      pendingTimers.add(t)
    },
    dispose() {
      disposed = true
      clearInterval(timer)
      for (const t of pendingTimers) clearTimeout(t)
      for (const g of groups.values()) g.held = []
    },
  }
}
