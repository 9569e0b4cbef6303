/**
 * The library as the page sees it: documents with their people, change time, unsent bytes and
 * state; invitations with who shared them. The members shown are the daemon's now, or as last
 * stored when it cannot say.
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { rolesIn, type Role } from '../roles/roles.ts'
import type { Logger } from '../ops/logger.ts'
import type { StoredDocument, StoredMember } from '../replica/doc-table.ts'
import type { Contacts } from '../people/contacts.ts'
import type { TellApart, Told } from '../people/told-apart.ts'
import type { Joined } from './joined.ts'
import { numbersOf, peopleIn, type Group } from '../group/listing.ts'
import type { Shelf } from './shelf.ts'

export type PersonView = {
  number: string
  name: string | undefined
  status: StoredMember['status']
  you: boolean
  /** A group admin: on Signal only admins may remove people (undefined when not known). */
  admin?: boolean
  /** `editor` or `viewer` (roles/roles.ts); undefined when the group is not listed now, or for someone not in it yet. */
  role?: Role
} & Told

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
  /** Who removed this person (a removed document, when a group update said; this account: left from another device). */
  removedBy?: { number: string; name: string | undefined } & Told
  /** A removed document deleted for everyone by an editor (`removedBy`, when known, is who). */
  deletedForEveryone?: true
  /** Fixed in E2E_COL_DOCUMENTS (cannot be left from the page). */
  fixed: boolean
}

export interface InviteView {
  /** The document id the invitation becomes (also the invitation's id in the API). */
  id: string
  groupId: string
  title: string
  /** Who shared it; `inContacts: false` when the account gave them no name (anyone may pick any profile name). */
  from: ({ number: string; name: string | undefined } & Told) | undefined
  members: PersonView[]
}

/** Who is who (contacts.ts). */
export type Names = TellApart

/** A person as shown, with the name the directory holds (undefined for this account). */
export function person(number: string, names: Names, you: string): { number: string; name: string | undefined } & Told {
  const told = names.tell(number)
  return number === you
    ? { number, name: undefined, shown: number, inContacts: true }
    : { number, name: names.name(number), ...told }
}

/** People as the page shows them (this account unnamed; admin-ness only when the group is listed). */
export function people(members: readonly StoredMember[], names: Names, you: string, g?: Group): PersonView[] {
  const admins = g === undefined ? undefined : numbersOf(g.admins)
  const roles = g === undefined ? undefined : rolesIn(g, { number: you })
  // Someone invited or asking has no role yet: it is decided when Signal lets them in.
  const listed = new Set(g === undefined ? [] : numbersOf(g.members))
  return members.map((m) => ({
    ...person(m.number, names, you),
    status: m.status,
    you: m.number === you,
    ...(admins === undefined ? {} : { admin: admins.includes(m.number) }),
    ...(roles === undefined || !listed.has(m.number) ? {} : { role: roles.of({ number: m.number }) }),
  }))
}

export interface Views {
  /** One document: from the group as listed now when given, else from its stored row. */
  view(
    docId: string,
    groupId: string,
    row: StoredDocument | undefined,
    g: Group | undefined,
    names: Names,
  ): DocumentView
  /** Every document: the fixed ones, then the stored ones (whose rows take what the daemon says now). */
  list(): Promise<{ documents: DocumentView[]; membersFrom: 'daemon' | 'store' }>
}

export interface ViewsOptions {
  readonly you: string
  readonly fixed: readonly { docId: string; groupId: string }[]
  readonly shelf: Shelf
  /** Who has been heard in each document: a listed member not heard yet is shown invited. */
  readonly joined: Pick<Joined, 'has'>
  readonly contacts: Pick<Contacts, 'directory'>
  /** Lists every group now. */
  readonly listGroups: () => Promise<GroupListing>
  readonly storing: <T>(fn: () => T) => T | undefined
  readonly logger: Logger
}

export function createViews(o: ViewsOptions): Views {
  const { shelf } = o
  function view(
    docId: string,
    groupId: string,
    row: StoredDocument | undefined,
    g: Group | undefined,
    names: Names,
  ): DocumentView {
    const listed = g === undefined ? (row?.members ?? []) : peopleIn(g)
    const state = row?.state ?? (shelf.isEnded(docId) ? 'removed' : 'active')
    const by = state === 'removed' ? shelf.removedBy(docId) : undefined
    // Signal lists someone added as a member at once: until their sidecar is heard, they are invited.
    const members = listed.map((m) =>
      m.status === 'member' && !o.joined.has(docId, { number: m.number }) ? { ...m, status: 'invited' as const } : m,
    )
    return {
      docId,
      groupId,
      title: (g?.name ?? undefined) || row?.title || 'Untitled',
      members: people(members, names, o.you, g),
      lastChange: shelf.lastChange(docId, row) ?? null,
      unsentBytes: shelf.unsentBytes(docId),
      state,
      fixed: shelf.isFixed(docId),
      ...(by === undefined ? {} : { removedBy: person(by, names, o.you) }),
      ...(state === 'removed' && shelf.isDeleted(docId) ? { deletedForEveryone: true as const } : {}),
    }
  }
  return {
    view,
    async list() {
      const rows = shelf.rows()
      let groups: GroupListing | undefined
      try {
        groups = await o.listGroups()
      } catch (error) {
        o.logger.warn({ err: error }, 'listGroups failed; showing members as last stored')
      }
      const byId = new Map((groups ?? []).map((g) => [g.id, g]))
      const names = await o.contacts.directory()
      const out: DocumentView[] = []
      for (const f of o.fixed) out.push(view(f.docId, f.groupId, undefined, byId.get(f.groupId), names))
      for (const row of rows) {
        const g = byId.get(row.groupId)
        if (g !== undefined && row.state === 'active') o.storing(() => shelf.remember(row, g))
        out.push(
          view(row.docId, row.groupId, shelf.row(row.docId) ?? row, row.state === 'active' ? g : undefined, names),
        )
      }
      return { documents: out, membersFrom: groups === undefined ? 'store' : 'daemon' }
    },
  }
}
