/**
 * Keeping the stored documents in step with their groups: a group update makes the library look at
 * that group again (one look per group waits at a time, however many updates come), the stored
 * documents are checked once after start (this account may have been removed while the sidecar was
 * down), and any listing the membership owner takes that shows this account out of a served
 * document's group stops serving it.
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import type { Listed } from '../group/membership.ts'
import type { Logger } from '../ops/logger.ts'
import { groupNow } from './group-ops.ts'
import { isDeletedFor, isMemberOf } from '../group/listing.ts'
import type { Shelf } from './shelf.ts'
import type { Steps } from './steps.ts'

export interface Follow {
  /** A group changed (`by`: who changed it, when the event says): a served document's membership is looked at again. */
  onGroupUpdate(groupId: string, by?: string): void
  /** Checks the stored documents' membership once (after start). */
  refresh(): Promise<void>
  /** A listing was taken (by any part): documents it shows this account out of stop being served. */
  onListed(listed: Listed): void
}

export interface FollowOptions {
  /** Lists every group (no id) or one group now, through the membership owner. */
  readonly listGroups: (groupId?: string) => Promise<GroupListing>
  readonly you: string
  readonly shelf: Shelf
  readonly steps: Steps
  readonly logger: Logger
}

export function createFollow(o: FollowOptions): Follow {
  const { shelf, steps, you } = o
  const looking = new Set<string>()

  return {
    onGroupUpdate(groupId, by) {
      const docId = shelf.servedIn(groupId)
      if (docId === undefined) return
      // However many updates a member sends, one look per group waits at a time.
      if (looking.has(groupId)) return
      looking.add(groupId)
      void steps
        .exclusive(async () => {
          looking.delete(groupId)
          const g = await groupNow(o.listGroups, groupId, 'look up the group')
          const row = shelf.row(docId)
          if (g === undefined) return
          if (row === undefined) {
            if (shelf.isFixed(docId) && isDeletedFor(g, you)) shelf.endFixed(docId, by)
            return
          }
          if (isDeletedFor(g, you)) shelf.markRemoved(row, by, true)
          else if (isMemberOf(g, you)) shelf.remember(row, g)
          else shelf.markRemoved(row, by)
        })
        .catch((error: unknown) => o.logger.warn({ err: error }, 'could not look at a changed group'))
    },

    refresh: () =>
      steps.exclusive(async () => {
        const rows = shelf.rows().filter((r) => r.state === 'active')
        const fixed = shelf.fixedDocs().filter((f) => !shelf.isEnded(f.docId))
        if (rows.length === 0 && fixed.length === 0) return
        let groups: GroupListing
        try {
          groups = await o.listGroups()
        } catch (error) {
          o.logger.warn({ err: error }, 'listGroups failed; stored documents keep being served')
          return
        }
        const byId = new Map(groups.map((g) => [g.id, g]))
        for (const f of fixed) {
          const g = byId.get(f.groupId)
          if (g !== undefined && isDeletedFor(g, you)) shelf.endFixed(f.docId)
        }
        for (const row of rows) {
          // A group the account's store no longer lists is one it is no longer in.
          const g = byId.get(row.groupId)
          if (g !== undefined && isDeletedFor(g, you)) shelf.markRemoved(row, undefined, true)
          else if (g !== undefined && isMemberOf(g, you)) shelf.remember(row, g)
          else shelf.markRemoved(row)
        }
      }),

    onListed(listed) {
      // Without this account's number a listing cannot say it is out (only the daemon's isMember could).
      if (you === '') return
      const out = new Set(listed.listing.filter((g) => !isMemberOf(g, you) || isDeletedFor(g, you)).map((g) => g.id))
      if (out.size === 0) return
      const gone = new Set(listed.listing.filter((g) => isDeletedFor(g, you)).map((g) => g.id))
      void steps
        .exclusive(async () => {
          for (const f of shelf.fixedDocs()) if (gone.has(f.groupId) && shelf.isServed(f.docId)) shelf.endFixed(f.docId)
          for (const row of shelf.rows()) {
            // A row added after the listing was asked may be newer than what it says.
            if (row.state !== 'active' || !out.has(row.groupId) || row.addedAt >= listed.askedAt) continue
            shelf.markRemoved(row, undefined, gone.has(row.groupId))
          }
        })
        .catch((error: unknown) => o.logger.debug({ err: error }, 'could not apply a group listing'))
    },
  }
}
