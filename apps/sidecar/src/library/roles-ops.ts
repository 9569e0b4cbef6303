/**
 * Changing a person's role in a document (group/roles.ts writes the rule): an editor makes a
 * member an editor (a group admin) or a viewer (a plain member). In a group without roles yet (a
 * document made before roles), the first change turns them on: every other member is made an
 * admin, so they stay editors, and only admins may then change details or add people; Signal lets
 * only an admin do that. Signal's servers refuse anyone else, so the check here only says it
 * earlier and more plainly.
 * @see docs/decisions/0020-document-roles.md, docs/documents.md "Roles"
 */
import type { GroupChange } from '@e2e-col/signal-cli'
import { hasRoles, rolesIn, type Role } from '../group/roles.ts'
import { LibraryError } from './library-error.ts'
import { numbersOf, type Group } from './listing.ts'

/**
 * Asked before Signal is: a viewer's change would be refused there with a 403.
 * @throws LibraryError DOCS_NOT_EDITOR when `you` may not change who is in, what they may do, or the title
 */
export function mustEdit(g: Group, you: string, what = 'share it or change roles'): void {
  if (rolesIn(g, { number: you }).self !== 'editor')
    throw new LibraryError('DOCS_NOT_EDITOR', `you can view this document; only its editors ${what}`)
}

/** The group change that gives `number` the role `role` in `g`, as `you`. @throws LibraryError */
export function roleChange(g: Group, you: string, number: string, role: Role): GroupChange {
  const members = numbersOf(g.members)
  if (!members.includes(number))
    throw new LibraryError('DOCS_UNKNOWN_MEMBER', `${number} is not a member of this document`)
  const admins = numbersOf(g.admins)
  if (!hasRoles(g)) {
    // Roles turned on: only an admin may, and everyone but a new viewer stays an editor.
    if (!admins.includes(you))
      throw new LibraryError('DOCS_NOT_EDITOR', 'only a group admin can turn on roles for this document')
    const editors = members.filter((n) => !(role === 'viewer' && n === number))
    return {
      permissions: 'only-admins',
      addAdmins: editors.filter((n) => !admins.includes(n)),
      removeAdmins: role === 'viewer' && admins.includes(number) ? [number] : [],
    }
  }
  mustEdit(g, you)
  if (role === 'viewer' && admins.length === 1 && admins[0] === number)
    throw new LibraryError(
      'DOCS_LAST_EDITOR',
      'a document keeps at least one editor; make someone else an editor first',
    )
  return role === 'editor' ? { addAdmins: [number] } : { removeAdmins: [number] }
}
