/**
 * Operations on a document's group, each talking to the daemon first and changing local state only
 * once it agreed: creating a document (a new group, served at once; a group whose message request
 * could not be accepted is left again), changing its members, renaming it, and leaving it.
 * @see docs/decisions/0007-documents-and-groups.md, docs/documents.md
 */
import type { Clock } from '../clock.ts'
import { messageOf } from '../error-code.ts'
import { hasRoles } from '../roles/roles.ts'
import type { Logger } from '../ops/logger.ts'
import type { StoredDocument } from '../replica/doc-table.ts'
import type { GroupListing, SignalChatMethods, SignalDocumentMethods } from '@e2e-col/signal-cli'
import type { Contacts } from '../people/contacts.ts'
import { docIdForGroup } from './doc-id.ts'
import {
  checkTitle,
  documentDescription,
  isPhoneNumber,
  LINKED_DEVICE_EXPIRATION_SECONDS,
  MAX_MEMBERS_PER_CHANGE,
  TITLE_PROBLEMS,
} from '../group/group-tag.ts'
import { daemonFailed, groupChangeFailed, LibraryError } from '../http/library-error.ts'
import { isInvitedTo, isMemberOf, numbersOf, type Group } from '../group/listing.ts'
import type { Shelf } from './shelf.ts'
import { mustEdit } from '../roles/roles-ops.ts'
import { commentersIn, MAX_COMMENTERS, withCommenters } from '../roles/commenters.ts'
import type { Promotions } from '../roles/promotions.ts'
import type { Steps } from './steps.ts'
import type { DocumentView, Views } from './views.ts'

/**
 * Who to share with; `viewers` (a subset) may not edit, everyone else named edits; `commenters`
 * (a subset of `viewers`) may comment and suggest (named in the description, roles/commenters.ts).
 */
export interface Sharing {
  readonly viewers?: readonly string[]
  readonly commenters?: readonly string[]
}

/** The description naming `before`'s commenters without `remove`, with `add`; undefined when unchanged. @throws LibraryError */
function describedCommenters(
  before: string | null | undefined,
  add: readonly string[],
  remove: readonly string[],
): string | undefined {
  const now = commentersIn(before)
  const next = [...now.filter((n) => !remove.includes(n) && !add.includes(n)), ...add]
  if (next.length > MAX_COMMENTERS)
    throw new LibraryError('DOCS_TOO_MANY_COMMENTERS', `a document names at most ${MAX_COMMENTERS} commenters`)
  if (next.length === now.length && next.every((n) => now.includes(n))) return undefined
  return withCommenters(before, next)
}

export interface GroupOperations {
  create(input: { title: string; members: readonly string[] } & Sharing): Promise<{ docId: string; groupId: string }>
  changeMembers(
    docId: string,
    change: { add: readonly string[]; remove: readonly string[] } & Sharing,
  ): Promise<DocumentView>
  rename(docId: string, title: string): Promise<DocumentView>
  /** Leaves the document's group and forgets the document (its replica log stays in the store). */
  leave(docId: string): Promise<void>
}

export interface GroupOperationsOptions {
  readonly backend: Pick<SignalDocumentMethods, 'createGroupWith' | 'updateGroup' | 'leaveGroup'> &
    Pick<SignalChatMethods, 'acceptGroupRequest'>
  /** Lists the one group now (through the membership owner, so every part hears of it). */
  readonly listGroup: (groupId: string) => Promise<GroupListing>
  readonly you: string
  /** On a linked device, document groups get a disappearing-messages timer. */
  readonly linkedDevice: boolean
  readonly shelf: Shelf
  readonly steps: Steps
  readonly contacts: Pick<Contacts, 'directory' | 'forget'>
  readonly views: Pick<Views, 'view'>
  readonly now: Clock['now']
  /** Editors invited before Signal lets them in are made admins once they join. */
  readonly promotions: Pick<Promotions, 'invited'>
  readonly logger: Logger
}

/** The title as Signal takes it. @throws LibraryError DOCS_TITLE_* */
export function checkedTitle(raw: string): string {
  const t = checkTitle(raw)
  if (t.ok) return t.title
  if (t.problem === 'empty') throw new LibraryError('DOCS_TITLE_EMPTY', 'the title is empty')
  if (t.problem === 'too-long')
    throw new LibraryError(
      'DOCS_TITLE_TOO_LONG',
      "the title is longer than 32 characters (Signal's limit for group names)",
    )
  throw new LibraryError('DOCS_TITLE_INVALID', `the title contains ${TITLE_PROBLEMS[t.problem]}`)
}

/** The group as the daemon lists it now (undefined when it does not). @throws LibraryError DOCS_DAEMON_FAILED */
export async function groupNow(
  listGroup: (groupId: string) => Promise<GroupListing>,
  groupId: string,
  step: string,
): Promise<Group | undefined> {
  try {
    return (await listGroup(groupId)).find((g) => g.id === groupId)
  } catch (error) {
    throw daemonFailed(step, error)
  }
}

/** The viewers named, each one of `members`. @throws LibraryError DOCS_BAD_REQUEST */
function viewersAmong(viewers: readonly string[] | undefined, members: readonly string[]): Set<string> {
  const out = new Set(viewers ?? [])
  const stray = [...out].find((n) => !members.includes(n))
  if (stray !== undefined)
    throw new LibraryError(
      'DOCS_BAD_REQUEST',
      `${JSON.stringify(stray.slice(0, 24))} is a viewer but not among those added`,
    )
  return out
}

/** The numbers given, checked, each once, without `you`. @throws LibraryError DOCS_TOO_MANY_MEMBERS, DOCS_BAD_NUMBER */
function checkMembers(list: readonly string[], what: string, you: string): string[] {
  if (list.length > MAX_MEMBERS_PER_CHANGE)
    throw new LibraryError(
      'DOCS_TOO_MANY_MEMBERS',
      `at most ${MAX_MEMBERS_PER_CHANGE} people per request (${list.length} given in ${what})`,
    )
  const bad = list.find((n) => !isPhoneNumber(n))
  if (bad !== undefined)
    throw new LibraryError(
      'DOCS_BAD_NUMBER',
      `${JSON.stringify(bad.slice(0, 24))} in ${what} is not a phone number in international form (+ and 7 to 15 digits)`,
    )
  return [...new Set(list)].filter((n) => n !== you)
}

/** Makes the document's group. Roles (roles/roles.ts): editors are admins, and only admins change details or add people. */
async function createGroup(
  o: Pick<GroupOperationsOptions, 'backend' | 'linkedDevice'>,
  title: string,
  members: string[],
  roles: { viewers: ReadonlySet<string>; commenters: readonly string[] },
): Promise<string> {
  try {
    return await o.backend.createGroupWith({
      name: title,
      members,
      description: describedCommenters(documentDescription(), roles.commenters, []) ?? documentDescription(),
      expirationSeconds: o.linkedDevice ? LINKED_DEVICE_EXPIRATION_SECONDS : 0,
      admins: members.filter((n) => !roles.viewers.has(n)),
      permissions: 'only-admins',
    })
  } catch (error) {
    throw daemonFailed('create the group', error)
  }
}

export function createGroupOperations(o: GroupOperationsOptions): GroupOperations {
  const { backend, shelf, steps, you } = o

  /** The view after a change: the stored row as it is now, the group as listed. */
  const viewNow = async (docId: string, groupId: string, g: Group | undefined): Promise<DocumentView> =>
    o.views.view(docId, groupId, shelf.row(docId), g, await o.contacts.directory())

  /** Leaves a group whose creation failed at `step`, and fails with why. */
  async function undo(groupId: string, members: string[], why: unknown, step: string): Promise<never> {
    try {
      await backend.leaveGroup(groupId, members)
    } catch (quitError) {
      o.logger.error({ err: quitError }, 'could not leave a group whose creation failed half-way')
      throw daemonFailed(step, why, `; leaving the new group failed too (${messageOf(quitError)})`)
    }
    throw daemonFailed(step, why, '; the new group was left again')
  }

  async function create(input: { title: string; members: readonly string[] } & Sharing) {
    const title = checkedTitle(input.title)
    const members = checkMembers(input.members, 'members', you)
    const viewers = viewersAmong(input.viewers, members)
    const commenters = [...viewersAmong(input.commenters, [...viewers])]
    shelf.checkRoom()
    const groupId = await createGroup(o, title, members, { viewers, commenters })
    try {
      await backend.acceptGroupRequest(groupId)
    } catch (error) {
      return undo(groupId, members, error, 'accept the new group')
    }
    o.promotions.invited(
      groupId,
      members.filter((n) => !viewers.has(n)),
    )
    const docId = docIdForGroup(groupId)
    const row: StoredDocument = {
      docId,
      groupId,
      title,
      members: [{ number: you, status: 'member' }, ...members.map((n) => ({ number: n, status: 'invited' as const }))],
      addedAt: o.now(),
      changedAt: 0,
      state: 'active',
    }
    const kept = steps.storing(() => shelf.keep(row))
    if (kept === undefined)
      return undo(groupId, members, new Error('the replica store failed'), 'keep the new document')
    o.logger.info({ docId, members: members.length }, 'document created')
    return { docId, groupId }
  }

  async function leaveGroup(g: Group): Promise<void> {
    // signal-cli refuses to let the last admin leave a group others are in without naming a new one.
    const admins = numbersOf(g.admins)
    const others = numbersOf(g.members).filter((n) => n !== you)
    const newAdmins = admins.length === 1 && admins[0] === you ? others : []
    try {
      await backend.leaveGroup(g.id, newAdmins)
    } catch (error) {
      throw daemonFailed('leave the group', error)
    }
  }

  return {
    create: (input) => steps.exclusive(() => create(input)),

    changeMembers: (docId, change) =>
      steps.exclusive(async () => {
        const add = checkMembers(change.add, 'add', you)
        const remove = checkMembers(change.remove, 'remove', you)
        const viewers = viewersAmong(change.viewers, add)
        const commenters = [...viewersAmong(change.commenters, [...viewers])]
        if (change.remove.includes(you))
          throw new LibraryError('DOCS_BAD_REQUEST', 'to stop sharing a document with yourself, leave it')
        if (add.length === 0 && remove.length === 0)
          throw new LibraryError('DOCS_BAD_REQUEST', 'nobody to add or remove')
        const { row, groupId } = shelf.known(docId)
        if (row?.state === 'removed') throw new LibraryError('DOCS_NOT_SHARED', 'you are no longer in this document')
        const before = await groupNow(o.listGroup, groupId, 'look up the group')
        if (before !== undefined) mustEdit(before, you)
        // In a group with roles, the people added as editors are made admins in the same change.
        const editors = before !== undefined && hasRoles(before) ? add.filter((n) => !viewers.has(n)) : []
        // Commenters are named in the description, which only admins may write (roles/commenters.ts).
        const description = describedCommenters(before?.description, commenters, [...remove, ...add])
        try {
          // Removed people are banned too, so the group's link (should a phone turn one on) cannot
          // bring them back; adding them again later lifts the ban (decisions/0023).
          await backend.updateGroup(groupId, {
            addMembers: add,
            removeMembers: remove,
            ban: remove,
            addAdmins: editors,
            ...(description === undefined ? {} : { description }),
          })
        } catch (error) {
          throw groupChangeFailed('change the members', error)
        }
        o.contacts.forget()
        if (editors.length > 0) o.promotions.invited(groupId, editors)
        const g = await groupNow(o.listGroup, groupId, 'list the members')
        if (row !== undefined && g !== undefined) shelf.remember(row, g)
        return viewNow(docId, groupId, g)
      }),

    rename: (docId, raw) =>
      steps.exclusive(async () => {
        const title = checkedTitle(raw)
        const { row, groupId } = shelf.known(docId)
        if (row?.state === 'removed') throw new LibraryError('DOCS_NOT_SHARED', 'you are no longer in this document')
        const before = await groupNow(o.listGroup, groupId, 'look up the group')
        if (before !== undefined) mustEdit(before, you, 'rename it')
        try {
          await backend.updateGroup(groupId, { name: title })
        } catch (error) {
          throw groupChangeFailed('rename the group', error)
        }
        if (row !== undefined) steps.stored(() => shelf.put({ ...row, title }))
        const g = await groupNow(o.listGroup, groupId, 'list the members').catch(() => undefined)
        return viewNow(docId, groupId, g)
      }),

    leave: (docId) =>
      steps.exclusive(async () => {
        const { row, groupId } = shelf.known(docId)
        if (row === undefined)
          throw new LibraryError(
            'DOCS_FIXED_DOCUMENT',
            'this document is fixed in E2E_COL_DOCUMENTS; remove it there instead',
          )
        if (row.state === 'active') {
          const g = await groupNow(o.listGroup, groupId, 'look up the group')
          if (g !== undefined && (isMemberOf(g, you) || isInvitedTo(g, you))) await leaveGroup(g)
          shelf.unserve(docId, 'you left this document')
        }
        shelf.forget(docId)
        o.logger.info({ docId }, 'document left')
      }),
  }
}
