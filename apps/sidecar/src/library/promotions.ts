/**
 * Editors invited before Signal lets them in. Signal makes admins of members only: a person
 * shared with whose profile this account lacks is *invited* (pending), and joins as a plain
 * member, a viewer (group/roles.ts). The sidecar that shared the document remembers whom it
 * invited as an editor and, on the first listing that shows them a member, makes them an admin.
 * The memory is this run's only: an editor who joins after a restart stays a viewer until an
 * editor makes them an editor (docs/documents.md "Roles").
 */
import type { GroupListing, SignalDocumentMethods } from '@e2e-col/signal-cli'
import { messageOf } from '../error-code.ts'
import { hasRoles } from '../group/roles.ts'
import type { Logger } from '../ops/logger.ts'
import { numbersOf } from './listing.ts'

// People remembered at once; beyond it the oldest is forgotten (they stay viewers).
const MAX_WAITING = 1000

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
  readonly logger: Logger
}): Promotions {
  // `${groupId} ${number}` in the order remembered.
  const waiting = new Set<string>()
  const inFlight = new Set<string>()

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
        if (waiting.size >= MAX_WAITING) {
          const oldest = waiting.values().next()
          if (oldest.done !== true) waiting.delete(oldest.value)
        }
        waiting.add(key(groupId, n))
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
          waiting.delete(k)
          if (!admins.includes(n)) joined.push(n)
        }
        // Anyone remembered who is neither invited nor in any more: forgotten.
        for (const k of waiting) {
          const n = k.startsWith(`${g.id} `) ? k.slice(g.id.length + 1) : undefined
          if (n !== undefined && !members.includes(n) && !pending.includes(n)) waiting.delete(k)
        }
        if (joined.length > 0 && admins.includes(o.you) && hasRoles(g)) void promote(g.id, joined)
      }
    },
  }
}
