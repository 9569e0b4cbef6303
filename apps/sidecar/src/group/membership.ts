/**
 * The one owner of the sidecar's group membership. It keeps the daemon's last listing of the
 * account's groups (the one read at start, then one `listGroups` for the whole sidecar every
 * `refreshMs`), lists at once when a part asks (the first body of an unknown source, a group
 * update, a page), and tells every subscriber each listing it takes: the receive path's member
 * check, the capability roster and the library read membership from here and from nowhere else.
 * @see docs/sidecar.md §4.6, docs/decisions/0014-sidecar-composition.md
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { membersIn, selfIn, selfKeyIn, type Member } from './members.ts'
import type { MemberId } from './roster.ts'

export type { Member } from './members.ts'

/** One listing taken, as subscribers are told of it. */
export interface Listed {
  readonly listing: GroupListing
  /** True for a listing of every group (start, periodic, a page's); false for the one group asked. */
  readonly whole: boolean
  /** When the listing was asked for (a part changed after it may know better). */
  readonly askedAt: number
}

export interface GroupMembershipOptions {
  /** The listing read at start (the daemon checks). */
  readonly initial: GroupListing
  /** This account's number, when known. */
  readonly account: string | undefined
  /** Lists the account's groups (one when `groupId` is given). */
  readonly list: (groupId?: string) => Promise<GroupListing>
  readonly refreshMs: number
  readonly now: () => number
  /** A periodic listing failed: the last listing is kept. */
  readonly onListFailed: (error: unknown) => void
  /** A subscriber threw on a listing (the others are still told). */
  readonly onSubscriberFailed: (error: unknown) => void
}

/** What a part reads of membership, and how it asks for a fresh listing. */
export interface MembershipSource {
  /** The members of a group as last listed (empty when never listed, or listed without members; a listing that leaves the group out keeps them). */
  members(groupId: string): readonly Member[]
  /** Calls `listener` after every listing taken; returns how to stop. */
  subscribe(listener: (listed: Listed) => void): () => void
  /**
   * Lists now (the one group when given), tells the subscribers, and answers with the listing.
   * @throws what the daemon threw (subscribers are not told of a failed listing)
   */
  ask(groupId?: string): Promise<GroupListing>
}

export interface GroupMembership extends MembershipSource {
  /** Every group listed so far, each as last listed (a listing that leaves a group out keeps it). */
  groups(): GroupListing
  /** This account by number, with its ACI when the start listing names it. */
  readonly self: MemberId
  /** This account's key as its bodies carry it, once known (from a listing, or a sync copy). */
  selfKey(): string | undefined
  /** A sync copy of this account's own send named its source: the key, when none is known yet. */
  learnSelf(key: string): void
  /** Stops the periodic listing and forgets the subscribers; a listing in flight tells no one. */
  dispose(): void
}

function merged(
  last: ReadonlyMap<string, GroupListing[number]>,
  fresh: GroupListing,
): Map<string, GroupListing[number]> {
  const out = new Map(last)
  for (const g of fresh) out.set(g.id, g)
  return out
}

export function createGroupMembership(o: GroupMembershipOptions): GroupMembership {
  let last = merged(new Map(), o.initial)
  let selfKey = selfKeyIn(o.initial, o.account)
  let disposed = false
  const listeners = new Set<(listed: Listed) => void>()

  function take(listed: Listed): void {
    if (disposed) return
    last = merged(last, listed.listing)
    for (const listener of listeners) {
      try {
        listener(listed)
      } catch (error) {
        o.onSubscriberFailed(error)
      }
    }
  }

  async function ask(groupId?: string): Promise<GroupListing> {
    const askedAt = o.now()
    const listing = await o.list(groupId)
    take({ listing, whole: groupId === undefined, askedAt })
    return listing
  }

  // The one periodic listing of the sidecar: a removed member is refused within refreshMs.
  const timer = setInterval(() => {
    ask().catch((error: unknown) => {
      if (!disposed) o.onListFailed(error)
    })
  }, o.refreshMs)
  timer.unref()

  return {
    members: (groupId) => membersIn(last.get(groupId)),
    groups: () => [...last.values()],
    self: selfIn(o.initial, o.account),
    selfKey: () => selfKey,
    learnSelf(key) {
      selfKey ??= key
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    ask,
    dispose() {
      disposed = true
      clearInterval(timer)
      listeners.clear()
    },
  }
}
