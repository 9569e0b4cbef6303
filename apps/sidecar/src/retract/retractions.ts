/**
 * Retracting a refused update from phones' chat histories. When this sidecar drops a member's
 * content as not theirs to make (a viewer's, a commenter's beyond the review structure, or wholly
 * under another account's ids), and this account is an admin of the document's group, it sends
 * signal-cli's `sendAdminDelete` for the Signal message that carried it, so the machine text does
 * not linger in members' Signal apps. Bounded: at most {@link RETRACT_LIMITS}.perMemberPerMinute
 * deletes per member in any minute, so a hostile member cannot make this sidecar send deletes
 * without end; beyond it the message stays in histories (it is dropped by every sidecar all the
 * same). A daemon before signal-cli 0.14.0 has no admin delete: it is asked nothing, logged once.
 * @see docs/decisions/0037-member-labels-and-admin-delete.md
 */
import type { Logger } from '../ops/logger.ts'

export const RETRACT_LIMITS = {
  /** Admin deletes sent for one member's messages in any 60 s. */
  perMemberPerMinute: 5,
  /** Members whose recent deletes are remembered; the least recently retracted beyond it are forgotten. */
  maxMembers: 256,
  windowMs: 60_000,
} as const

export interface RetractionOptions {
  /** The client's `adminDelete`: false, asking nothing, when the daemon predates it. */
  readonly adminDelete: (groupId: string, target: { author: string; timestamp: number }) => Promise<boolean>
  /** Whether this account is an admin of the group now (only an admin's delete is heeded). */
  readonly isAdmin: (groupId: string) => boolean
  readonly now: () => number
  readonly logger: Pick<Logger, 'info' | 'warn'>
  /** Counts each outcome (sent, over-limit, failed). */
  readonly counted?: (outcome: 'sent' | 'over-limit' | 'failed') => void
}

export interface Retractions {
  /** `author`'s Signal message sent at `timestamp` in `groupId` carried refused content. */
  refused(groupId: string, author: string, timestamp: number): void
}

export function createRetractions(o: RetractionOptions): Retractions {
  // Per member: the times of the deletes sent for it within the window (Map order: least recent first).
  const recent = new Map<string, number[]>()
  let unsupported = false

  const allowed = (author: string): boolean => {
    const now = o.now()
    const kept = (recent.get(author) ?? []).filter((t) => now - t < RETRACT_LIMITS.windowMs)
    recent.delete(author)
    if (kept.length >= RETRACT_LIMITS.perMemberPerMinute) {
      recent.set(author, kept)
      return false
    }
    recent.set(author, [...kept, now])
    while (recent.size > RETRACT_LIMITS.maxMembers) recent.delete(recent.keys().next().value ?? '')
    return true
  }

  return {
    refused(groupId, author, timestamp) {
      if (unsupported || author === '' || !o.isAdmin(groupId)) return
      if (!allowed(author)) return o.counted?.('over-limit')
      o.adminDelete(groupId, { author, timestamp }).then(
        (done) => {
          if (done) return o.counted?.('sent')
          if (unsupported) return
          unsupported = true
          o.logger.info(
            {},
            'the Signal daemon predates admin delete (signal-cli 0.14.0): refused updates stay in chat histories',
          )
        },
        (error: unknown) => {
          o.counted?.('failed')
          o.logger.warn({ err: error, groupId }, 'could not delete a refused update from the group’s chat history')
        },
      )
    },
  }
}
