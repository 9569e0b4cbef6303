/**
 * Changing a person's role in a document (roles/roles.ts writes the rule): an editor makes a
 * member an editor (a group admin), a commenter (a plain member the description names,
 * roles/commenters.ts) or a viewer (a plain member). In a group without roles yet (a
 * document made before roles), the first change turns them on: every other member is made an
 * admin, so they stay editors, and only admins may then change details or add people; Signal lets
 * only an admin do that. Signal's servers refuse anyone else, so the check here only says it
 * earlier and more plainly.
 * @see docs/decisions/0020-document-roles.md, docs/documents.md "Roles"
 */
import type { GroupChange } from '@e2e-col/signal-cli'
import { commentersIn, MAX_COMMENTERS, withCommenters } from './commenters.ts'
import { hasRoles, rolesIn, type Role } from './roles.ts'
import { LibraryError } from '../http/library-error.ts'
import { numbersOf, type Group } from '../group/listing.ts'

/**
 * Asked before Signal is: a viewer's change would be refused there with a 403.
 * @throws LibraryError DOCS_NOT_EDITOR when `you` may not change who is in, what they may do, or the title
 */
export function mustEdit(g: Group, you: string, what = 'share it or change roles'): void {
  if (rolesIn(g, { number: you }).self !== 'editor')
    throw new LibraryError('DOCS_NOT_EDITOR', `you can view this document; only its editors ${what}`)
}

/**
 * The description naming the commenters once `number` has `role` (undefined: unchanged).
 * @throws LibraryError DOCS_TOO_MANY_COMMENTERS past {@link MAX_COMMENTERS}
 */
function commentersChange(g: Group, number: string, role: Role): { description?: string } {
  const now = commentersIn(g.description)
  const named = now.includes(number)
  if ((role === 'commenter') === named) return {}
  const next = role === 'commenter' ? [...now, number] : now.filter((n) => n !== number)
  if (next.length > MAX_COMMENTERS)
    throw new LibraryError('DOCS_TOO_MANY_COMMENTERS', `a document names at most ${MAX_COMMENTERS} commenters`)
  return { description: withCommenters(g.description, next) }
}

/** The group change that gives `number` the role `role` in `g`, as `you`. @throws LibraryError */
export function roleChange(g: Group, you: string, number: string, role: Role): GroupChange {
  return { ...adminChange(g, you, number, role), ...commentersChange(g, number, role) }
}

/** The admin flags of {@link roleChange}: an editor is an admin, a commenter or viewer is not. */
function adminChange(g: Group, you: string, number: string, role: Role): GroupChange {
  const members = numbersOf(g.members)
  if (!members.includes(number))
    throw new LibraryError('DOCS_UNKNOWN_MEMBER', `${number} is not a member of this document`)
  const admins = numbersOf(g.admins)
  if (!hasRoles(g)) {
    // Roles turned on: only an admin may, and everyone but a new viewer stays an editor.
    if (!admins.includes(you))
      throw new LibraryError('DOCS_NOT_EDITOR', 'only a group admin can turn on roles for this document')
    const editors = members.filter((n) => !(role !== 'editor' && n === number))
    return {
      permissions: 'only-admins',
      addAdmins: editors.filter((n) => !admins.includes(n)),
      removeAdmins: role !== 'editor' && admins.includes(number) ? [number] : [],
    }
  }
  mustEdit(g, you)
  if (role !== 'editor' && admins.length === 1 && admins[0] === number)
    throw new LibraryError(
      'DOCS_LAST_EDITOR',
      'a document keeps at least one editor; make someone else an editor first',
    )
  if (role === 'editor') return { addAdmins: [number] }
  return role === 'viewer' || admins.includes(number) ? { removeAdmins: [number] } : {}
}
