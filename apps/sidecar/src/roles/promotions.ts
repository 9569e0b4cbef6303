/**
 * Editors invited before Signal lets them in. Signal makes admins of members only: a person
 * shared with whose profile this account lacks is *invited* (pending), and joins as a plain
 * member, a viewer (roles/roles.ts). The sidecar that shared the document remembers whom it
 * invited as an editor and, on the first listing that shows them a member, makes them an admin.
 * The memory is kept in the store (roles/promotion-table.ts), so a restart of the sharer's
 * sidecar before they join changes nothing (docs/documents.md "Roles").
 */
import type { GroupListing, SignalDocumentMethods } from '@e2e-col/signal-cli'
import { messageOf } from '../error-code.ts'
import { hasRoles } from './roles.ts'
import type { Logger } from '../ops/logger.ts'
import type { PromotionTable } from './promotion-table.ts'
import { numbersOf } from '../group/listing.ts'

const key = (groupId: string, number: string): string => `${groupId} ${number}`

export interface Promotions {
  /** `numbers` were just added to `groupId` as editors: remembered until a listing shows them members. */
  invited(groupId: string, numbers: readonly string[]): void
  /** A listing was taken: invitees who became members are made editors. */
  onListed(listing: GroupListing): void
}

export function createPromotions(o: {
  readonly backend: Pick<SignalDocumentMethods, 'updateGroup'>
  /** Lists the group again (through the membership owner: Signal tells everyone but the changer). */
  readonly listGroup: (groupId: string) => Promise<unknown>
  readonly you: string
  /** The remembered invitees (bounded there; the oldest forgotten first). */
  readonly rows: PromotionTable
  readonly now: () => number
  /** Runs a store write; a failure stops the sidecar (library.ts). */
  readonly storing: (fn: () => void) => unknown
  readonly logger: Logger
}): Promotions {
  // `${groupId} ${number}` of every remembered invitee; the rows are the durable copy.
  const waiting = new Set<string>(o.rows.list().map((r) => key(r.groupId, r.number)))
  const inFlight = new Set<string>()
  const forget = (groupId: string, number: string): void => {
    waiting.delete(key(groupId, number))
    o.storing(() => o.rows.forget(groupId, number))
  }

  async function promote(groupId: string, numbers: string[]): Promise<void> {
    for (const n of numbers) inFlight.add(key(groupId, n))
    try {
      await o.backend.updateGroup(groupId, { addAdmins: numbers })
      o.logger.info({ people: numbers.length }, 'made invited editors admins once they joined')
      await o.listGroup(groupId)
    } catch (error) {
      o.logger.warn(
        { reason: messageOf(error) },
        'could not make a joined editor an admin, or list the group after; they view until an editor changes it',
      )
    } finally {
      for (const n of numbers) inFlight.delete(key(groupId, n))
    }
  }

  return {
    invited(groupId, numbers) {
      for (const n of numbers) {
        waiting.add(key(groupId, n))
        o.storing(() => o.rows.remember(groupId, n, o.now()))
      }
    },
    onListed(listing) {
      if (waiting.size === 0) return
      for (const g of listing) {
        const members = numbersOf(g.members)
        const pending = numbersOf(g.pendingMembers)
        const admins = numbersOf(g.admins)
        const joined: string[] = []
        for (const n of [...members, ...pending]) {
          const k = key(g.id, n)
          if (!waiting.has(k) || inFlight.has(k) || !members.includes(n)) continue
          forget(g.id, n)
          if (!admins.includes(n)) joined.push(n)
        }
        // Anyone remembered who is neither invited nor in any more: forgotten.
        for (const k of waiting) {
          const n = k.startsWith(`${g.id} `) ? k.slice(g.id.length + 1) : undefined
          if (n !== undefined && !members.includes(n) && !pending.includes(n)) forget(g.id, n)
        }
        if (joined.length > 0 && admins.includes(o.you) && hasRoles(g)) void promote(g.id, joined)
      }
    },
  }
}
