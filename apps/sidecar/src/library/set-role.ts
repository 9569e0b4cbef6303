/**
 * The role change as the library runs it: one step at a time, the group looked up now, the
 * change checked (roles/roles-ops.ts) and made through the daemon, then the document as listed after.
 * @see docs/documents.md "Roles"
 */
import type { Role } from '../roles/roles.ts'
import { groupNow, type GroupOperationsOptions } from './group-ops.ts'
import { groupChangeFailed, LibraryError } from '../http/library-error.ts'
import { roleChange } from '../roles/roles-ops.ts'
import type { DocumentView } from './views.ts'

/** Makes a member an editor or a viewer; only an editor may. @throws LibraryError */
export type SetRole = (docId: string, number: string, role: Role) => Promise<DocumentView>

export function createSetRole(
  o: Pick<
    GroupOperationsOptions,
    'backend' | 'listGroup' | 'you' | 'shelf' | 'steps' | 'contacts' | 'views' | 'logger'
  >,
): SetRole {
  return (docId, number, role) =>
    o.steps.exclusive(async () => {
      const { row, groupId } = o.shelf.known(docId)
      if (row?.state === 'removed') throw new LibraryError('DOCS_NOT_SHARED', 'you are no longer in this document')
      const g = await groupNow(o.listGroup, groupId, 'look up the group')
      if (g === undefined) throw new LibraryError('DOCS_NOT_SHARED', 'the daemon does not list this document')
      const change = roleChange(g, o.you, number, role)
      try {
        await o.backend.updateGroup(groupId, change)
      } catch (error) {
        throw groupChangeFailed('change the role', error)
      }
      o.logger.info({ docId, role }, 'role changed')
      const after = await groupNow(o.listGroup, groupId, 'list the members')
      return o.views.view(docId, groupId, o.shelf.row(docId), after, await o.contacts.directory())
    })
}
