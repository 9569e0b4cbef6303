/**
 * Invitations: document groups another member's sidecar made and put this account in (or invited
 * it to), not yet served here. Nothing is served or stored for one until it is accepted; declining
 * leaves the group. Who shared one is remembered from the group update that brought it (bounded, in the store),
 * else taken to be an admin other than this account.
 */
import type { Clock } from '../clock.ts'
import { codeOf } from '../error-code.ts'
import type { Logger } from '../ops/logger.ts'
import type { StoredDocument } from '../replica/doc-table.ts'
import type { InviterTable } from './inviter-table.ts'
import type { GroupListing, SignalChatMethods, SignalDocumentMethods } from '@e2e-col/signal-cli'
import type { Contacts } from '../people/contacts.ts'
import { docIdForGroup } from './doc-id.ts'
import { groupNow } from './group-ops.ts'
import { isDocumentGroup } from '../group/group-tag.ts'
import type { Joined } from './joined.ts'
import { daemonFailed, LibraryError } from '../http/library-error.ts'
import { isInvitedTo, isMemberOf, numbersOf, peopleIn, type Group } from '../group/listing.ts'
import type { Shelf } from './shelf.ts'
import type { Steps } from './steps.ts'
import { people, person, type InviteView } from './views.ts'

export interface Invitations {
  invites(): Promise<InviteView[]>
  accept(inviteId: string): Promise<{ docId: string; groupId: string }>
  decline(inviteId: string): Promise<void>
  /** A group not served here was updated by `sourceNumber`: it may be an invitation they shared. */
  noteInviter(groupId: string, sourceNumber: string | undefined): void
}

export interface InvitationsOptions {
  readonly backend: Pick<SignalDocumentMethods, 'updateGroup' | 'leaveGroup'> &
    Pick<SignalChatMethods, 'acceptGroupRequest'>
  /** Lists every group (no id) or one group now, through the membership owner. */
  readonly listGroups: (groupId?: string) => Promise<GroupListing>
  readonly you: string
  /** Groups bound to something else (chats): never offered as documents. */
  readonly reserved: (groupId: string) => boolean
  readonly shelf: Shelf
  readonly steps: Steps
  /** Who brought each invitation, kept in the store (inviter-table.ts): it survives a restart. */
  readonly inviters: InviterTable
  /** Who shared a document has joined it: accepting marks them so (joined.ts). */
  readonly joined: Pick<Joined, 'heard'>
  readonly contacts: Pick<Contacts, 'directory'>
  readonly now: Clock['now']
  readonly logger: Logger
}

export function createInvitations(o: InvitationsOptions): Invitations {
  const { shelf, steps, you, inviters } = o

  function isOffered(g: Group): boolean {
    if (!isDocumentGroup(g.description) || g.isBlocked === true || o.reserved(g.id)) return false
    // An ended group (deleted for everyone) still lists its members, but is no one's to accept.
    if (g.isTerminated === true) return false
    if (!isMemberOf(g, you) && !isInvitedTo(g, you)) return false
    const docId = docIdForGroup(g.id)
    // A document this account was removed from is offered again when someone shares it again.
    const row = shelf.row(docId)
    return !shelf.isFixed(docId) && !shelf.isServed(docId) && (row === undefined || row.state === 'removed')
  }

  async function offered(): Promise<Group[]> {
    let groups: GroupListing
    try {
      groups = await o.listGroups()
    } catch (error) {
      throw daemonFailed('list groups', error)
    }
    return groups.filter(isOffered)
  }

  /** Who shared it: the sender of the group update that brought it, else an admin other than this account. */
  function inviterOf(g: Group): string | undefined {
    return steps.stored(() => inviters.get(g.id)) ?? numbersOf(g.admins).find((n) => n !== you)
  }

  async function findInvite(id: string): Promise<Group> {
    const g = (await offered()).find((x) => docIdForGroup(x.id) === id)
    if (g === undefined) throw new LibraryError('DOCS_UNKNOWN_INVITE', `no invitation ${id}`)
    return g
  }

  /** Joins (an invited account updates the group first) and accepts the group's message request. */
  async function join(g: Group): Promise<void> {
    if (!isMemberOf(g, you)) {
      try {
        await o.backend.updateGroup(g.id, {})
      } catch (error) {
        throw daemonFailed('join the group', error)
      }
    }
    try {
      await o.backend.acceptGroupRequest(g.id)
    } catch (error) {
      throw daemonFailed("accept the group's message request", error, '; the invitation stays open')
    }
  }

  /** The group as a listing asked now shows it, when this account is in it; else the accept ends. */
  async function stillIn(groupId: string): Promise<Group> {
    const g = await groupNow(o.listGroups, groupId, 'list the members')
    if (g !== undefined && isMemberOf(g, you)) return g
    throw new LibraryError(
      'DOCS_REMOVED_WHILE_ACCEPTING',
      'you were removed from this group while accepting the invitation; nothing was kept',
    )
  }

  /**
   * Joins, then serves the document only if a fresh listing has this account in it. A removal that
   * lands between that listing and serving (its group update is not followed before the document
   * is served) is caught by one more listing asked after serving: the document is then forgotten.
   */
  async function accept(inviteId: string): Promise<{ docId: string; groupId: string }> {
    const g = await findInvite(inviteId)
    shelf.checkRoom()
    await join(g)
    const docId = docIdForGroup(g.id)
    const joined = await stillIn(g.id)
    // Shared again after a removal: the kept replica and its last change carry on. It counts as
    // added now: a listing asked before this accept must not mark it removed again (follow.ts).
    const before = shelf.row(docId)
    const row: StoredDocument = {
      docId,
      groupId: g.id,
      title: g.name ?? 'Untitled',
      members: peopleIn(joined),
      addedAt: o.now(),
      changedAt: before?.changedAt ?? 0,
      state: 'active',
    }
    steps.stored(() => shelf.keep(row))
    try {
      await stillIn(g.id)
    } catch (error) {
      if (codeOf(error) !== 'DOCS_REMOVED_WHILE_ACCEPTING') {
        // The daemon did not answer: the document stays; the next listing still checks it.
        o.logger.warn({ err: error, docId }, 'could not check the membership again after accepting')
      } else {
        shelf.unserve(docId, 'you are no longer in this document')
        shelf.forget(docId)
        throw error
      }
    }
    o.joined.heard(docId, { number: inviterOf(g) })
    // Members answer with the document's content.
    shelf.askGroup(docId)
    steps.storing(() => inviters.forget(g.id))
    o.logger.info({ docId }, 'invitation accepted')
    return { docId, groupId: g.id }
  }

  return {
    async invites() {
      const groups = await offered()
      if (groups.length === 0) return []
      const names = await o.contacts.directory()
      return groups.map((g) => {
        const inviter = inviterOf(g)
        return {
          id: docIdForGroup(g.id),
          groupId: g.id,
          title: g.name ?? 'Untitled',
          from: inviter === undefined ? undefined : person(inviter, names, you),
          members: people(peopleIn(g), names, you),
        }
      })
    },
    accept: (inviteId) => steps.exclusive(() => accept(inviteId)),
    decline: (inviteId) =>
      steps.exclusive(async () => {
        const g = await findInvite(inviteId)
        try {
          await o.backend.leaveGroup(g.id, [])
        } catch (error) {
          throw daemonFailed('leave the group', error)
        }
        steps.storing(() => inviters.forget(g.id))
      }),
    noteInviter(groupId, sourceNumber) {
      if (sourceNumber === undefined || sourceNumber === you) return
      steps.storing(() => inviters.get(groupId) ?? inviters.remember(groupId, sourceNumber, o.now()))
    },
  }
}
