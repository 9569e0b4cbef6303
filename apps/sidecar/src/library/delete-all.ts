/**
 * "Delete for everyone": an editor ends a document for every member. Where the daemon can
 * (signal-cli 0.14.8+, feature-detected by its `version`), the group is ended (`terminateGroup`):
 * it stays, read-only, with everyone in it. An older daemon cannot end a group, so the description
 * is marked deleted, everyone else (members and invitees) is removed and banned in one change, and
 * this account leaves. Each member's sidecar reads either as the document deleted (group/listing.ts
 * `isDeletedFor`) and stops serving it; the local copy stays readable, like a removal's.
 * @see docs/decisions/0028-delete-for-everyone.md, docs/documents.md
 */
import type { GroupListing, SignalDocumentMethods } from '@e2e-col/signal-cli'
import type { Logger } from '../ops/logger.ts'
import { deletedDescription } from '../group/group-tag.ts'
import { groupNow } from './group-ops.ts'
import { daemonFailed, LibraryError } from '../http/library-error.ts'
import { isMemberOf, numbersOf } from '../group/listing.ts'
import { mustEdit } from '../roles/roles-ops.ts'
import type { Shelf } from './shelf.ts'
import type { Steps } from './steps.ts'

/** How the document was deleted: the group ended, or everyone removed and the group left. */
export type DeleteWay = 'terminated' | 'removed-and-left'

export interface DeleteAllOptions {
  readonly backend: Pick<SignalDocumentMethods, 'terminateGroup' | 'updateGroup' | 'leaveGroup'>
  readonly listGroup: (groupId: string) => Promise<GroupListing>
  readonly you: string
  readonly shelf: Pick<Shelf, 'known' | 'markRemoved'>
  readonly steps: Steps
  readonly logger: Logger
}

export type DeleteForEveryone = (docId: string) => Promise<{ docId: string; way: DeleteWay }>

export function createDeleteForEveryone(o: DeleteAllOptions): DeleteForEveryone {
  const { backend, you } = o

  /** Without terminateGroup: marked deleted first, so the removal that follows reads as a deletion. */
  async function removeEveryone(groupId: string, others: string[]): Promise<void> {
    try {
      await backend.updateGroup(groupId, { description: deletedDescription() })
    } catch (error) {
      throw daemonFailed('mark the group deleted', error)
    }
    try {
      if (others.length > 0) await backend.updateGroup(groupId, { removeMembers: others, ban: others })
    } catch (error) {
      throw daemonFailed('remove the members', error)
    }
    try {
      await backend.leaveGroup(groupId, [])
    } catch (error) {
      throw daemonFailed('leave the group', error)
    }
  }

  return (docId) =>
    o.steps.exclusive(async () => {
      const { row, groupId } = o.shelf.known(docId)
      if (row === undefined)
        throw new LibraryError(
          'DOCS_FIXED_DOCUMENT',
          'this document is fixed in E2E_COL_DOCUMENTS; remove it there instead',
        )
      if (row.state === 'removed') throw new LibraryError('DOCS_NOT_SHARED', 'you are no longer in this document')
      const g = await groupNow(o.listGroup, groupId, 'look up the group')
      if (g === undefined || !isMemberOf(g, you))
        throw new LibraryError('DOCS_NOT_SHARED', 'you are no longer in this document')
      mustEdit(g, you)
      let ended: boolean
      try {
        ended = await backend.terminateGroup(groupId)
      } catch (error) {
        throw daemonFailed('end the group', error)
      }
      if (!ended) {
        const others = [...new Set([...numbersOf(g.members), ...numbersOf(g.pendingMembers)])].filter((n) => n !== you)
        await removeEveryone(groupId, others)
      }
      o.shelf.markRemoved(row, you, true)
      const way: DeleteWay = ended ? 'terminated' : 'removed-and-left'
      o.logger.info({ docId, way }, 'document deleted for everyone')
      return { docId, way }
    })
}
