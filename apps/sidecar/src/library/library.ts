/**
 * The person's documents: creating one (a new Signal group, served at once), sharing and
 * unsharing it, renaming it, leaving it, and the invitations other members' sidecars sent. Each
 * operation talks to the daemon first and changes local state only once the daemon agreed, so a
 * failure leaves no half-made document: a group created whose message request could not be
 * accepted is left again (quitGroup) and the failure reported.
 * Operations run one at a time. Nothing is served or stored for an invitation until it is accepted.
 * @see docs/decisions/0007-documents-and-groups.md, docs/documents.md
 */
import type { Clock } from '../clock.ts'
import type { Documents } from '../documents.ts'
import type { Logger } from '../ops/logger.ts'
import type { StoredDocument, StoredMember } from '../replica/doc-table.ts'
import { loadReplica, type DocReplica } from '../replica/replica.ts'
import type { ReplicaStore } from '../replica/store.ts'
import type {
  GroupListing,
  SignalBackend,
  SignalChatMethods,
  SignalContact,
  SignalDocumentMethods,
} from '@e2e-col/signal-cli'
import { docIdForGroup } from './doc-id.ts'
import {
  checkTitle,
  documentDescription,
  isDocumentGroup,
  isPhoneNumber,
  LINKED_DEVICE_EXPIRATION_SECONDS,
  MAX_MEMBERS_PER_CHANGE,
} from './group-tag.ts'
import { daemonFailed, LibraryError } from './library-error.ts'

/** Most documents one sidecar serves (each keeps its replica in memory). */
export const MAX_DOCUMENTS = 256
// Change times are written at most this often per document (the latest is kept in memory).
const TOUCH_EVERY_MS = 10_000
// Senders of group updates remembered to say who shared an invitation.
const MAX_REMEMBERED_INVITERS = 256
const CONTACTS_TTL_MS = 30_000

type Group = GroupListing[number]
export type LibraryBackend = SignalBackend & Pick<SignalChatMethods, 'acceptGroupRequest'> & SignalDocumentMethods

export interface PersonView {
  number: string
  name: string | undefined
  status: StoredMember['status']
  you: boolean
  /** A group admin: on Signal only admins may remove people (undefined when not known). */
  admin?: boolean
}

export interface DocumentView {
  docId: string
  groupId: string
  title: string
  members: PersonView[]
  /** ms of the last change applied on this machine; null when none since it was added. */
  lastChange: number | null
  /** Bytes of edits waiting to be sent to the group. */
  unsentBytes: number
  /** `removed`: this person is no longer in the group; kept, not served. */
  state: 'active' | 'removed'
  /** Fixed in E2E_COL_DOCUMENTS (cannot be left from the page). */
  fixed: boolean
}

export interface InviteView {
  /** The document id the invitation becomes (also the invitation's id in the API). */
  id: string
  groupId: string
  title: string
  from: { number: string; name: string | undefined } | undefined
  members: PersonView[]
}

export interface DocumentLibrary {
  /** This account's number. */
  readonly you: string
  /** The documents, with members as the daemon says now (or as last stored when it cannot say). */
  list(): Promise<{ documents: DocumentView[]; membersFrom: 'daemon' | 'store' }>
  create(input: { title: string; members: readonly string[] }): Promise<{ docId: string; groupId: string }>
  changeMembers(docId: string, change: { add: readonly string[]; remove: readonly string[] }): Promise<DocumentView>
  rename(docId: string, title: string): Promise<DocumentView>
  /** Leaves the document's group and forgets the document (its replica log stays in the store). */
  leave(docId: string): Promise<void>
  invites(): Promise<InviteView[]>
  accept(inviteId: string): Promise<{ docId: string; groupId: string }>
  decline(inviteId: string): Promise<void>
  contacts(): Promise<SignalContact[]>
  /** A group changed: a served document's membership is looked at again. */
  onGroupUpdate(groupId: string, sourceNumber: string | undefined): void
  /** Starts serving the stored documents (at start, before the listener opens). */
  serveStored(): void
  /** Checks the stored documents' membership once (after start). */
  refresh(): Promise<void>
  /** Writes pending change times. */
  close(): void
}

export interface LibraryOptions {
  backend: LibraryBackend
  you: string
  documents: Documents
  store: ReplicaStore
  /** Documents fixed in E2E_COL_DOCUMENTS. */
  fixed: readonly { docId: string; groupId: string }[]
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

const numberOf = (m: NonNullable<Group['members']>[number]): string | undefined =>
  typeof m === 'string' ? m : (m.number ?? undefined)
const numbersOf = (list: Group['members']): string[] =>
  (list ?? []).map(numberOf).filter((n): n is string => n !== undefined)

function membersOf(g: Group): StoredMember[] {
  const seen = new Set<string>()
  const out: StoredMember[] = []
  const push = (list: Group['members'], status: StoredMember['status']) => {
    for (const n of numbersOf(list))
      if (!seen.has(n)) {
        seen.add(n)
        out.push({ number: n, status })
      }
  }
  push(g.members, 'member')
  push(g.pendingMembers, 'invited')
  push(g.requestingMembers, 'requesting')
  return out
}

function checkedTitle(raw: string): string {
  const t = checkTitle(raw)
  if (t.ok) return t.title
  if (t.problem === 'empty') throw new LibraryError('DOCS_TITLE_EMPTY', 'the title is empty')
  if (t.problem === 'too-long')
    throw new LibraryError(
      'DOCS_TITLE_TOO_LONG',
      "the title is longer than 32 characters (Signal's limit for group names)",
    )
  throw new LibraryError('DOCS_TITLE_INVALID', 'the title contains control characters')
}

export function createDocumentLibrary(o: LibraryOptions): DocumentLibrary {
  const { backend, documents, store, you } = o
  const fixed = new Map(o.fixed.map((d) => [d.docId, d]))
  const inviters = new Map<string, string>()
  const lastChange = new Map<string, number>()
  const lastTouch = new Map<string, number>()
  const unsubscribe = new Map<string, () => void>()
  let contactsCache: { at: number; list: SignalContact[] } | undefined
  const refreshing = new Set<string>()
  let turn: Promise<unknown> = Promise.resolve()

  /** Runs operations one at a time. */
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = turn.then(() => {
      if (o.stopped()) throw new LibraryError('DOCS_STOPPING', 'the sidecar is stopping')
      return fn()
    })
    turn = run.catch(() => undefined)
    return run
  }

  function stored<T>(fn: () => T): T {
    const r = o.storing(() => ({ value: fn() }))
    if (r === undefined) throw new LibraryError('DOCS_STOPPING', 'the replica store failed; the sidecar is stopping')
    return r.value
  }

  const isMember = (g: Group): boolean => g.isMember === true || numbersOf(g.members).includes(you)
  const isInvited = (g: Group): boolean => numbersOf(g.pendingMembers).includes(you)

  async function contactNames(): Promise<Map<string, string | undefined>> {
    try {
      return new Map((await contactsList()).map((c) => [c.number, c.name]))
    } catch {
      return new Map()
    }
  }
  async function contactsList(fresh = false): Promise<SignalContact[]> {
    const now = o.clock.now()
    if (!fresh && contactsCache !== undefined && now - contactsCache.at < CONTACTS_TTL_MS) return contactsCache.list
    const list = await backend.listContacts()
    contactsCache = { at: now, list }
    return list
  }
  const people = (
    members: readonly StoredMember[],
    names: Map<string, string | undefined>,
    admins?: readonly string[],
  ): PersonView[] =>
    members.map((m) => ({
      number: m.number,
      name: m.number === you ? undefined : names.get(m.number),
      status: m.status,
      you: m.number === you,
      ...(admins === undefined ? {} : { admin: admins.includes(m.number) }),
    }))

  /** Starts serving a stored or accepted document. */
  function serve(row: StoredDocument): void {
    if (documents.has(row.docId)) return
    const replica = loadReplica(store, row.docId)
    documents.add(row.docId, row.groupId, replica)
    watchChanges(row.docId, replica)
  }
  /** Notes the time of each change to a served document's replica (its "last change"). */
  function watchChanges(docId: string, replica: DocReplica): void {
    const onUpdate = (): void => noteChange(docId)
    replica.doc.on('update', onUpdate)
    unsubscribe.set(docId, () => replica.doc.off('update', onUpdate))
  }
  function unserve(docId: string, reason: string): void {
    unsubscribe.get(docId)?.()
    unsubscribe.delete(docId)
    documents.remove(docId, o.closeCode, reason)
  }
  function noteChange(docId: string): void {
    const now = o.clock.now()
    lastChange.set(docId, now)
    if (now - (lastTouch.get(docId) ?? 0) < TOUCH_EVERY_MS) return
    lastTouch.set(docId, now)
    o.storing(() => store.documents.touch(docId, now))
  }

  function checkMembers(list: readonly string[], what: string): string[] {
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

  /** The stored or fixed document, or DOCS_UNKNOWN_DOCUMENT. */
  function known(docId: string): { row: StoredDocument | undefined; groupId: string } {
    const row = stored(() => store.documents.get(docId))
    if (row !== undefined) return { row, groupId: row.groupId }
    const f = fixed.get(docId)
    if (f !== undefined) return { row: undefined, groupId: f.groupId }
    throw new LibraryError('DOCS_UNKNOWN_DOCUMENT', `no document ${docId}`)
  }

  async function groupNow(groupId: string, step: string): Promise<Group | undefined> {
    try {
      return (await backend.listGroups(groupId)).find((g) => g.id === groupId)
    } catch (error) {
      throw daemonFailed(step, error)
    }
  }

  function view(
    docId: string,
    groupId: string,
    row: StoredDocument | undefined,
    g: Group | undefined,
    names: Map<string, string | undefined>,
  ): DocumentView {
    const members = g === undefined ? (row?.members ?? []) : membersOf(g)
    const changed = lastChange.get(docId) ?? row?.changedAt ?? 0
    return {
      docId,
      groupId,
      title: (g?.name ?? undefined) || row?.title || 'Untitled',
      members: people(members, names, g === undefined ? undefined : numbersOf(g.admins)),
      lastChange: changed === 0 ? null : changed,
      unsentBytes: documents.get(docId)?.queue.queuedBytes ?? 0,
      state: row?.state ?? 'active',
      fixed: fixed.has(docId),
    }
  }

  /** Stores what the daemon says now about a stored document (title, members). */
  function remember(row: StoredDocument, g: Group): void {
    const members = membersOf(g)
    const title = g.name ?? row.title
    if (title === row.title && JSON.stringify(members) === JSON.stringify(row.members)) return
    stored(() => store.documents.put({ ...row, title, members }))
  }

  /** This account is out of a served document's group: stop serving, keep the row as removed. */
  function markRemoved(row: StoredDocument): void {
    if (row.state === 'removed') return
    unserve(row.docId, 'you are no longer in this document')
    stored(() => store.documents.put({ ...row, state: 'removed' }))
    o.logger.info({ docId: row.docId }, "no longer a member of the document's group; stopped serving it")
  }

  async function findInvite(id: string): Promise<Group> {
    let groups: GroupListing
    try {
      groups = await backend.listGroups()
    } catch (error) {
      throw daemonFailed('list groups', error)
    }
    const g = groups.find((x) => docIdForGroup(x.id) === id && isOffered(x))
    if (g === undefined) throw new LibraryError('DOCS_UNKNOWN_INVITE', `no invitation ${id}`)
    return g
  }
  function isOffered(g: Group): boolean {
    if (!isDocumentGroup(g.description) || g.isBlocked === true || o.reserved(g.id)) return false
    if (!isMember(g) && !isInvited(g)) return false
    const docId = docIdForGroup(g.id)
    // A document this account was removed from is offered again when someone shares it again.
    const row = stored(() => store.documents.get(docId))
    return !fixed.has(docId) && !documents.has(docId) && (row === undefined || row.state === 'removed')
  }

  return {
    you,
    async list() {
      const rows = stored(() => store.documents.list())
      let groups: GroupListing | undefined
      try {
        groups = await backend.listGroups()
      } catch (error) {
        o.logger.warn({ err: error }, 'listGroups failed; showing members as last stored')
      }
      const byId = new Map((groups ?? []).map((g) => [g.id, g]))
      const names = await contactNames()
      const out: DocumentView[] = []
      for (const f of o.fixed) out.push(view(f.docId, f.groupId, undefined, byId.get(f.groupId), names))
      for (const row of rows) {
        const g = byId.get(row.groupId)
        if (g !== undefined && row.state === 'active') o.storing(() => remember(row, g))
        out.push(
          view(
            row.docId,
            row.groupId,
            stored(() => store.documents.get(row.docId)) ?? row,
            row.state === 'active' ? g : undefined,
            names,
          ),
        )
      }
      return { documents: out, membersFrom: groups === undefined ? 'store' : 'daemon' }
    },

    create: (input) =>
      exclusive(async () => {
        const title = checkedTitle(input.title)
        const members = checkMembers(input.members, 'members')
        if (documents.size >= MAX_DOCUMENTS)
          throw new LibraryError('DOCS_TOO_MANY_DOCUMENTS', `this sidecar serves at most ${MAX_DOCUMENTS} documents`)
        let groupId: string
        try {
          groupId = await backend.createGroupWith({
            name: title,
            members,
            description: documentDescription(),
            expirationSeconds: o.linkedDevice ? LINKED_DEVICE_EXPIRATION_SECONDS : 0,
          })
        } catch (error) {
          throw daemonFailed('create the group', error)
        }
        const undo = async (why: unknown, step: string): Promise<never> => {
          try {
            await backend.leaveGroup(groupId, members)
          } catch (quitError) {
            o.logger.error({ err: quitError }, 'could not leave a group whose creation failed half-way')
            throw daemonFailed(
              step,
              why,
              `; leaving the new group failed too (${quitError instanceof Error ? quitError.message : String(quitError)})`,
            )
          }
          throw daemonFailed(step, why, '; the new group was left again')
        }
        try {
          await backend.acceptGroupRequest(groupId)
        } catch (error) {
          return undo(error, 'accept the new group')
        }
        const docId = docIdForGroup(groupId)
        const now = o.clock.now()
        const row: StoredDocument = {
          docId,
          groupId,
          title,
          members: [
            { number: you, status: 'member' },
            ...members.map((n) => ({ number: n, status: 'invited' as const })),
          ],
          addedAt: now,
          changedAt: 0,
          state: 'active',
        }
        const kept = o.storing(() => {
          store.documents.put(row)
          serve(row)
          return true
        })
        if (kept === undefined) return undo(new Error('the replica store failed'), 'keep the new document')
        o.logger.info({ docId, members: members.length }, 'document created')
        return { docId, groupId }
      }),

    changeMembers: (docId, change) =>
      exclusive(async () => {
        const add = checkMembers(change.add, 'add')
        const remove = checkMembers(change.remove, 'remove')
        if (change.remove.includes(you))
          throw new LibraryError('DOCS_BAD_REQUEST', 'to stop sharing a document with yourself, leave it')
        if (add.length === 0 && remove.length === 0)
          throw new LibraryError('DOCS_BAD_REQUEST', 'nobody to add or remove')
        const { row, groupId } = known(docId)
        if (row?.state === 'removed') throw new LibraryError('DOCS_NOT_SHARED', 'you are no longer in this document')
        try {
          await backend.updateGroup(groupId, { addMembers: add, removeMembers: remove })
        } catch (error) {
          throw daemonFailed('change the members', error)
        }
        contactsCache = undefined
        const g = await groupNow(groupId, 'list the members')
        if (row !== undefined && g !== undefined) remember(row, g)
        return view(
          docId,
          groupId,
          stored(() => store.documents.get(docId)),
          g,
          await contactNames(),
        )
      }),

    rename: (docId, raw) =>
      exclusive(async () => {
        const title = checkedTitle(raw)
        const { row, groupId } = known(docId)
        if (row?.state === 'removed') throw new LibraryError('DOCS_NOT_SHARED', 'you are no longer in this document')
        try {
          await backend.updateGroup(groupId, { name: title })
        } catch (error) {
          throw daemonFailed('rename the group', error)
        }
        if (row !== undefined) stored(() => store.documents.put({ ...row, title }))
        const g = await groupNow(groupId, 'list the members').catch(() => undefined)
        return view(
          docId,
          groupId,
          stored(() => store.documents.get(docId)),
          g,
          await contactNames(),
        )
      }),

    leave: (docId) =>
      exclusive(async () => {
        const { row, groupId } = known(docId)
        if (row === undefined)
          throw new LibraryError(
            'DOCS_FIXED_DOCUMENT',
            'this document is fixed in E2E_COL_DOCUMENTS; remove it there instead',
          )
        if (row.state === 'active') {
          const g = await groupNow(groupId, 'look up the group')
          // signal-cli refuses to let the last admin leave a group others are in without naming a new one.
          const admins = numbersOf(g?.admins)
          const others = numbersOf(g?.members).filter((n) => n !== you)
          const newAdmins = admins.length === 1 && admins[0] === you ? others : []
          if (g !== undefined && (isMember(g) || isInvited(g))) {
            try {
              await backend.leaveGroup(groupId, newAdmins)
            } catch (error) {
              throw daemonFailed('leave the group', error)
            }
          }
          unserve(docId, 'you left this document')
        }
        stored(() => store.documents.remove(docId))
        lastChange.delete(docId)
        o.logger.info({ docId }, 'document left')
      }),

    async invites() {
      let groups: GroupListing
      try {
        groups = await backend.listGroups()
      } catch (error) {
        throw daemonFailed('list groups', error)
      }
      const offered = groups.filter(isOffered)
      if (offered.length === 0) return []
      const names = await contactNames()
      return offered.map((g) => {
        const inviter = inviters.get(g.id) ?? numbersOf(g.admins).find((n) => n !== you)
        return {
          id: docIdForGroup(g.id),
          groupId: g.id,
          title: g.name ?? 'Untitled',
          from: inviter === undefined ? undefined : { number: inviter, name: names.get(inviter) },
          members: people(membersOf(g), names),
        }
      })
    },

    accept: (inviteId) =>
      exclusive(async () => {
        const g = await findInvite(inviteId)
        if (documents.size >= MAX_DOCUMENTS)
          throw new LibraryError('DOCS_TOO_MANY_DOCUMENTS', `this sidecar serves at most ${MAX_DOCUMENTS} documents`)
        if (!isMember(g)) {
          // An invited account joins with an update of its own (signal-cli accepts the invitation first).
          try {
            await backend.updateGroup(g.id, {})
          } catch (error) {
            throw daemonFailed('join the group', error)
          }
        }
        try {
          await backend.acceptGroupRequest(g.id)
        } catch (error) {
          throw daemonFailed("accept the group's message request", error, '; the invitation stays open')
        }
        const docId = docIdForGroup(g.id)
        const joined = (await groupNow(g.id, 'list the members').catch(() => undefined)) ?? g
        // Shared again after a removal: the kept replica and its last change carry on.
        const before = stored(() => store.documents.get(docId))
        const row: StoredDocument = {
          docId,
          groupId: g.id,
          title: g.name ?? 'Untitled',
          members: membersOf(joined),
          addedAt: before?.addedAt ?? o.clock.now(),
          changedAt: before?.changedAt ?? 0,
          state: 'active',
        }
        stored(() => {
          store.documents.put(row)
          serve(row)
          return true
        })
        // Members answer with the document's content.
        documents.get(docId)?.askGroup()
        inviters.delete(g.id)
        o.logger.info({ docId }, 'invitation accepted')
        return { docId, groupId: g.id }
      }),

    decline: (inviteId) =>
      exclusive(async () => {
        const g = await findInvite(inviteId)
        try {
          await backend.leaveGroup(g.id, [])
        } catch (error) {
          throw daemonFailed('leave the group', error)
        }
        inviters.delete(g.id)
      }),

    contacts: async () => {
      try {
        return (await contactsList(true)).filter((c) => c.number !== you)
      } catch (error) {
        throw daemonFailed('list contacts', error)
      }
    },

    onGroupUpdate(groupId, sourceNumber) {
      // A group brings its members' profiles (names) with it.
      contactsCache = undefined
      const doc = documents.byGroup(groupId)
      if (doc === undefined) {
        if (sourceNumber !== undefined && sourceNumber !== you && !inviters.has(groupId)) {
          if (inviters.size >= MAX_REMEMBERED_INVITERS) inviters.delete(inviters.keys().next().value ?? '')
          inviters.set(groupId, sourceNumber)
        }
        return
      }
      const docId = doc.docId
      // However many updates a member sends, one look per group waits at a time.
      if (refreshing.has(groupId)) return
      refreshing.add(groupId)
      void exclusive(async () => {
        refreshing.delete(groupId)
        const row = stored(() => store.documents.get(docId))
        const g = await groupNow(groupId, 'look up the group')
        if (row === undefined || g === undefined) return
        if (isMember(g)) remember(row, g)
        else markRemoved(row)
      }).catch((error: unknown) => o.logger.warn({ err: error }, 'could not look at a changed group'))
    },

    serveStored() {
      // Fixed documents are served by the caller; their changes are noted here too.
      for (const f of o.fixed) {
        const replica = documents.get(f.docId)?.replica
        if (replica !== undefined && !unsubscribe.has(f.docId)) watchChanges(f.docId, replica)
      }
      // At start a store failure fails the start (the caller closes what it opened).
      for (const row of store.documents.list()) {
        if (row.state !== 'active' || fixed.has(row.docId)) continue
        serve(row)
      }
    },

    refresh: () =>
      exclusive(async () => {
        const rows = stored(() => store.documents.list()).filter((r) => r.state === 'active')
        if (rows.length === 0) return
        let groups: GroupListing
        try {
          groups = await backend.listGroups()
        } catch (error) {
          o.logger.warn({ err: error }, 'listGroups failed; stored documents keep being served')
          return
        }
        const byId = new Map(groups.map((g) => [g.id, g]))
        for (const row of rows) {
          // A group the account's store no longer lists is one it is no longer in.
          const g = byId.get(row.groupId)
          if (g !== undefined && isMember(g)) remember(row, g)
          else markRemoved(row)
        }
      }),

    close() {
      for (const [docId, at] of lastChange)
        if (at !== lastTouch.get(docId)) o.storing(() => store.documents.touch(docId, at))
      for (const off of unsubscribe.values()) off()
      unsubscribe.clear()
    },
  }
}
