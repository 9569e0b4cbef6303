/**
 * The person's documents, behind one small facade: operations on groups (create, share, rename,
 * leave: group-ops.ts), invitations (invitations.ts), the views the page reads (views.ts), the
 * contacts cache (contacts.ts), the stored and served documents (shelf.ts), and keeping them in
 * step with their groups (follow.ts). Each operation talks to the daemon first and changes local
 * state only once the daemon agreed; operations run one at a time (steps.ts). Every listing goes
 * through the sidecar's membership owner, so the other parts hear of it too.
 * @see docs/decisions/0007-documents-and-groups.md, docs/decisions/0014-sidecar-composition.md, docs/documents.md
 */
import type { Clock } from '../clock.ts'
import type { Documents } from '../documents.ts'
import type { MembershipSource } from '../group/membership.ts'
import type { MemberId } from '../group/roster.ts'
import type { Logger } from '../ops/logger.ts'
import type { ReplicaStore } from '../replica/store.ts'
import type { PromotionTable } from '../roles/promotion-table.ts'
import type { InviterTable } from './inviter-table.ts'
import type { JoinedTable } from './joined-table.ts'
import type { RemovalTable } from './removal-table.ts'
import type { SignalBackend, SignalChatMethods, SignalDocumentMethods } from '@e2e-col/signal-cli'
import type { Contacts, ContactView } from '../people/contacts.ts'
import { createDeleteForEveryone, type DeleteForEveryone } from './delete-all.ts'
import { createLinkGuard } from './link-guard.ts'
import { createFollow } from './follow.ts'
import { createGroupOperations, type GroupOperations } from './group-ops.ts'
import { createInvitations, type Invitations } from './invitations.ts'
import { createJoined } from './joined.ts'
import { createPromotions } from '../roles/promotions.ts'
import { createSetRole, type SetRole } from './set-role.ts'
import { createShelf } from './shelf.ts'
import { createSteps } from './steps.ts'
import { createViews, type Views } from './views.ts'

export { MAX_DOCUMENTS } from './shelf.ts'
export type { DocumentView, InviteView, PersonView } from './views.ts'

export type LibraryBackend = SignalBackend & Pick<SignalChatMethods, 'acceptGroupRequest'> & SignalDocumentMethods

export interface DocumentLibrary
  extends GroupOperations, Pick<Invitations, 'invites' | 'accept' | 'decline'>, Pick<Views, 'list'> {
  /** Makes a member an editor or a viewer (roles/roles.ts); only an editor may. */
  readonly setRole: SetRole
  /** An editor deletes the document for everyone (delete-all.ts). */
  readonly deleteForEveryone: DeleteForEveryone
  /** This account's number. */
  readonly you: string
  contacts(): Promise<ContactView[]>
  /** Someone's name as shown (people/told-apart.ts), from the contacts last read; undefined when not known yet. */
  shownName(number: string): string | undefined
  /** Reads the contacts once (at start, so a member's first presence carries their name); never throws. */
  readNames(): Promise<void>
  /** A group changed: a served document's membership is looked at again. */
  onGroupUpdate(groupId: string, sourceNumber: string | undefined): void
  /** A body from `from` was heard in a served document's group: they have joined it (joined.ts). */
  heard(docId: string, from: MemberId | undefined): void
  /** Starts serving the stored documents (at start, before the listener opens). */
  serveStored(): void
  /** Checks the stored documents' membership once (after start). */
  refresh(): Promise<void>
  /** Writes pending change times and stops following listings. */
  close(): void
}

export interface LibraryOptions {
  backend: Pick<
    LibraryBackend,
    | 'listContacts'
    | 'listIdentities'
    | 'createGroupWith'
    | 'updateGroup'
    | 'leaveGroup'
    | 'acceptGroupRequest'
    | 'terminateGroup'
  >
  /** Where listings come from (and go to): the sidecar's one membership owner. */
  membership: Pick<MembershipSource, 'ask' | 'subscribe'>
  you: string
  documents: Pick<Documents, 'has' | 'get' | 'loaded' | 'servedIn' | 'serve' | 'onLoad' | 'remove' | 'size'>
  /** The store with the library's own tables and the invited editors' (phases/store.ts opens them). */
  store: ReplicaStore & {
    readonly inviters: InviterTable
    readonly joined: JoinedTable
    readonly removals: RemovalTable
    readonly promotions: PromotionTable
  }
  /** Documents fixed in E2E_COL_DOCUMENTS. */
  fixed: readonly { docId: string; groupId: string }[]
  /** Who is who, read from the daemon's contacts (made before the documents, whose presence names people). */
  contacts: Contacts
  /** Groups bound to something else (chats): never offered as documents. */
  reserved: (groupId: string) => boolean
  /** On a linked device, document groups get a disappearing-messages timer. */
  linkedDevice: boolean
  clock: Clock
  /** Runs a step that touches the store; a store failure stops the sidecar (undefined then). */
  storing: <T>(fn: () => T) => T | undefined
  stopped: () => boolean
  /** Close code and reason for the browsers of a document no longer served. */
  closeCode: number
  logger: Logger
}

export function createDocumentLibrary(o: LibraryOptions): DocumentLibrary {
  const { you, logger } = o
  const now = o.clock.now
  const listGroups = (groupId?: string) => o.membership.ask(groupId)
  const steps = createSteps({ stopped: o.stopped, storing: o.storing })
  const joined = createJoined({ table: o.store.joined, you, now, storing: o.storing })
  const shelf = createShelf({ ...o, steps, now, joined })
  const { contacts } = o
  const views = createViews({ you, fixed: o.fixed, shelf, joined, contacts, listGroups, storing: o.storing, logger })
  const promotions = createPromotions({
    backend: o.backend,
    listGroup: listGroups,
    you,
    rows: o.store.promotions,
    now,
    storing: o.storing,
    logger,
  })
  const unpromote = o.membership.subscribe((listed) => promotions.onListed(listed.listing))
  const operations = createGroupOperations({
    ...o,
    listGroup: listGroups,
    shelf,
    steps,
    contacts,
    views,
    now,
    promotions,
  })
  const invitations = createInvitations({
    ...o,
    listGroups,
    shelf,
    steps,
    contacts,
    now,
    inviters: o.store.inviters,
    joined,
  })
  const follow = createFollow({ listGroups, you, shelf, steps, logger })
  const unfollow = o.membership.subscribe(follow.onListed)
  const unguard = o.membership.subscribe(createLinkGuard({ backend: o.backend, you, shelf, logger }))
  return {
    you,
    list: views.list,
    create: operations.create,
    async changeMembers(docId, change) {
      const view = await operations.changeMembers(docId, change)
      for (const number of change.remove) joined.forgetMember(docId, number)
      return view
    },
    rename: operations.rename,
    setRole: createSetRole({ ...o, listGroup: listGroups, shelf, steps, contacts, views }),
    leave: operations.leave,
    deleteForEveryone: createDeleteForEveryone({
      backend: o.backend,
      listGroup: listGroups,
      you,
      shelf,
      steps,
      logger,
    }),
    invites: invitations.invites,
    accept: invitations.accept,
    decline: invitations.decline,
    contacts: contacts.fresh,
    shownName: contacts.shownNow,
    readNames: async () => void (await contacts.directory()),
    onGroupUpdate(groupId, sourceNumber) {
      // A group brings its members' profiles (names) with it.
      contacts.forget()
      if (shelf.servedIn(groupId) === undefined) invitations.noteInviter(groupId, sourceNumber)
      else follow.onGroupUpdate(groupId, sourceNumber)
    },
    heard: joined.heard,
    serveStored: shelf.serveStored,
    refresh: follow.refresh,
    close() {
      unfollow()
      unguard()
      unpromote()
      shelf.close()
    },
  }
}
