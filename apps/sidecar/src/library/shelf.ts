/**
 * The library's documents: the rows kept in the replica store (title, members, removed or not),
 * the ones served now, and when each last changed on this machine. Serving a row loads its
 * replica into the sidecar's documents; a row whose group no longer has this account is kept as
 * `removed` and no longer served.
 */
import type { Clock } from '../clock.ts'
import type { Documents } from '../documents.ts'
import type { Logger } from '../ops/logger.ts'
import type { StoredDocument } from '../replica/doc-table.ts'
import type { ReplicaStore } from '../replica/store.ts'
import type { RemovalTable } from './removal-table.ts'
import type { Joined } from './joined.ts'
import { LibraryError } from '../http/library-error.ts'
import { peopleIn, type Group } from '../group/listing.ts'
import type { Steps } from './steps.ts'

/** Most documents one sidecar serves (each keeps its replica in memory). */
export const MAX_DOCUMENTS = 256
// Change times are written at most this often per document (the latest is kept in memory).
const TOUCH_EVERY_MS = 10_000

export interface Shelf {
  /** The stored row, or undefined. */
  row(docId: string): StoredDocument | undefined
  rows(): StoredDocument[]
  /** The stored or fixed document. @throws LibraryError DOCS_UNKNOWN_DOCUMENT */
  known(docId: string): { row: StoredDocument | undefined; groupId: string }
  isFixed(docId: string): boolean
  /** The documents fixed in E2E_COL_DOCUMENTS. */
  fixedDocs(): readonly { docId: string; groupId: string }[]
  /** A fixed document whose group was ended (deleted for everyone): listed as removed, never served. */
  isEnded(docId: string): boolean
  /** A fixed document's group was ended: stop serving it and keep why (`by`, when an update said). */
  endFixed(docId: string, by?: string): void
  /** The document served over a group, if any. */
  servedIn(groupId: string): string | undefined
  isServed(docId: string): boolean
  /** @throws LibraryError DOCS_TOO_MANY_DOCUMENTS when MAX_DOCUMENTS are served */
  checkRoom(): void
  /** Stores a row (a store failure throws: callers run it as a store step). */
  put(row: StoredDocument): void
  /** Stores a new row and serves it (a store failure throws: callers run it as a store step). */
  keep(row: StoredDocument): true
  /** Starts serving a stored or accepted document. */
  serve(row: StoredDocument): void
  unserve(docId: string, reason: string): void
  /** Members of a served document answer with its content. */
  askGroup(docId: string): void
  /** Stores what the daemon says now about a stored document (title, members). */
  remember(row: StoredDocument, g: Group): void
  /**
   * This account is out of a served document's group: stop serving, keep the row as removed. `by`:
   * who changed the group, when a group update said (stored with `deleted`: a restart keeps both).
   */
  markRemoved(row: StoredDocument, by?: string, deleted?: boolean): void
  /** Who removed this account from a removed document, when known. */
  removedBy(docId: string): string | undefined
  /** True when a removed document was deleted for everyone. */
  isDeleted(docId: string): boolean
  /** Forgets a left document (its replica log stays in the store). */
  forget(docId: string): void
  /** ms of the last change applied here (memory first, then the row); undefined when none. */
  lastChange(docId: string, row: StoredDocument | undefined): number | undefined
  unsentBytes(docId: string): number
  /** Starts serving the stored documents (at start: a store failure fails the start). */
  serveStored(): void
  /** Writes pending change times. */
  close(): void
}

export interface ShelfOptions {
  readonly documents: Pick<Documents, 'has' | 'get' | 'loaded' | 'servedIn' | 'serve' | 'onLoad' | 'remove' | 'size'>
  readonly store: ReplicaStore & { readonly removals: RemovalTable }
  readonly fixed: readonly { docId: string; groupId: string }[]
  readonly steps: Steps
  readonly now: Clock['now']
  /** Who joined each document (forgotten with the document). */
  readonly joined: Pick<Joined, 'forget'>
  /** Close code for the browsers of a document no longer served. */
  readonly closeCode: number
  readonly logger: Logger
}

export function createShelf(o: ShelfOptions): Shelf {
  const { documents, store, steps } = o
  const fixed = new Map(o.fixed.map((d) => [d.docId, d]))
  const lastChange = new Map<string, number>()
  const lastTouch = new Map<string, number>()

  function noteChange(docId: string): void {
    const now = o.now()
    lastChange.set(docId, now)
    if (now - (lastTouch.get(docId) ?? 0) < TOUCH_EVERY_MS) return
    lastTouch.set(docId, now)
    steps.storing(() => touchStored(docId, now))
  }
  /** A fixed document has no row: its change time has a table of its own. */
  function touchStored(docId: string, at: number): void {
    if (fixed.has(docId)) store.fixedChanges.touch(docId, at)
    else store.documents.touch(docId, at)
  }
  // Its replica loads on first use (decisions/0040).
  function serve(row: StoredDocument): void {
    if (!documents.has(row.docId)) documents.serve(row.docId, row.groupId)
  }
  // Notes the time of each change to a served document in memory (its "last change").
  documents.onLoad((doc) => doc.content.onChange(() => noteChange(doc.docId)))
  function unserve(docId: string, reason: string): void {
    documents.remove(docId, o.closeCode, reason)
  }

  return {
    row: (docId) => steps.stored(() => store.documents.get(docId)),
    rows: () => steps.stored(() => store.documents.list()),
    known(docId) {
      const row = steps.stored(() => store.documents.get(docId))
      if (row !== undefined) return { row, groupId: row.groupId }
      const f = fixed.get(docId)
      if (f !== undefined) return { row: undefined, groupId: f.groupId }
      throw new LibraryError('DOCS_UNKNOWN_DOCUMENT', `no document ${docId}`)
    },
    isFixed: (docId) => fixed.has(docId),
    fixedDocs: () => o.fixed,
    isEnded: (docId) => fixed.has(docId) && steps.stored(() => store.removals.get(docId))?.deleted === true,
    endFixed(docId, by) {
      steps.stored(() => store.removals.note(docId, by === '' ? undefined : by, true, o.now()))
      if (!documents.has(docId)) return
      unserve(docId, 'this document was deleted for everyone')
      o.logger.info({ docId }, "the fixed document's group was ended; stopped serving it")
    },
    servedIn: (groupId) => documents.servedIn(groupId),
    isServed: (docId) => documents.has(docId),
    checkRoom() {
      if (documents.size >= MAX_DOCUMENTS)
        throw new LibraryError('DOCS_TOO_MANY_DOCUMENTS', `this sidecar serves at most ${MAX_DOCUMENTS} documents`)
    },
    put: (row) => store.documents.put(row),
    keep(row) {
      // Accepted again: an earlier removal says nothing of this one.
      store.removals.forget(row.docId)
      store.documents.put(row)
      serve(row)
      return true
    },
    serve,
    unserve,
    askGroup: (docId) => documents.get(docId)?.group.ask(),
    remember(row, g) {
      const members = peopleIn(g)
      const title = g.name ?? row.title
      if (title === row.title && JSON.stringify(members) === JSON.stringify(row.members)) return
      steps.stored(() => store.documents.put({ ...row, title, members }))
    },
    markRemoved(row, by, gone) {
      // A later, better-informed look (a group update naming who) still completes what is known;
      // it is stored before the row says removed, so a removed row never outlives its why.
      const named = by !== undefined && by !== ''
      if (named || gone === true)
        steps.stored(() => store.removals.note(row.docId, named ? by : undefined, gone === true, o.now()))
      if (row.state === 'removed') return
      unserve(row.docId, 'you are no longer in this document')
      steps.stored(() => store.documents.put({ ...row, state: 'removed' }))
      o.logger.info({ docId: row.docId }, "no longer a member of the document's group; stopped serving it")
    },
    removedBy: (docId) => steps.stored(() => store.removals.get(docId))?.by,
    isDeleted: (docId) => steps.stored(() => store.removals.get(docId))?.deleted === true,
    forget(docId) {
      steps.stored(() => store.removals.forget(docId))
      steps.stored(() => store.documents.remove(docId))
      lastChange.delete(docId)
      o.joined.forget(docId)
    },
    lastChange(docId, row) {
      const kept = fixed.has(docId) ? steps.stored(() => store.fixedChanges.get(docId)) : row?.changedAt
      const at = lastChange.get(docId) ?? kept ?? 0
      return at === 0 ? undefined : at
    },
    unsentBytes: (docId) => documents.loaded(docId)?.outbox.queuedBytes ?? 0,
    serveStored() {
      // Fixed documents are served by the caller; their changes are noted here too. One whose
      // group was ended stays ended: its configuration does not bring it back.
      for (const f of o.fixed) {
        if (store.removals.get(f.docId)?.deleted === true) unserve(f.docId, 'this document was deleted for everyone')
      }
      for (const row of store.documents.list()) {
        if (row.state !== 'active' || fixed.has(row.docId)) continue
        serve(row)
      }
    },
    close() {
      for (const [docId, at] of lastChange) if (at !== lastTouch.get(docId)) steps.storing(() => touchStored(docId, at))
    },
  }
}
