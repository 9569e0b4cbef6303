/**
 * Who has joined each document: the members whose sidecar has been heard in the document's group
 * (any e2e-col body from them). Signal lists a person added with a profile as a full member at
 * once, before they accepted anything; only a body from their sidecar says they are in. Kept
 * across restarts, at most {@link MAX_JOINED} rows, the oldest forgotten first.
 * @see docs/documents.md §1.5
 */
import type { Database } from 'better-sqlite3'
import { guarded } from '../replica/guarded.ts'
import { pairRows } from '../replica/pair-rows.ts'
import type { FeatureTables, ReplicaStore } from '../replica/store.ts'

/** Rows kept (a member of a document is one or two rows: by number and by ACI). */
export const MAX_JOINED = 16_384

export interface JoinedTable {
  /** The member keys heard in a document. */
  list(docId: string): string[]
  /** Keeps a member key (again: nothing changes); forgets the oldest rows above the bound. */
  remember(docId: string, member: string, at: number): void
  /** Forgets one member key of a document (removed from it: they join again by being heard again). */
  forgetMember(docId: string, member: string): void
  forget(docId: string): void
}

/** The joined table: created on a writable open of the store (phases/store.ts). */
export const JOINED_TABLES: FeatureTables = { create: (db) => db.exec(JOINED_SCHEMA) }

/** Who joined, as the library reads and writes it in an open store. */
export const joinedTableOf = (store: Pick<ReplicaStore, 'db' | 'path' | 'writable'>): JoinedTable =>
  createJoinedTable(store.db, store.path, !store.writable)

export const JOINED_SCHEMA = `
CREATE TABLE IF NOT EXISTS joined (doc_id TEXT NOT NULL, member TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (doc_id, member)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS joined_at ON joined (at);
`

export function createJoinedTable(db: Database, path: string, readonly: boolean, max = MAX_JOINED): JoinedTable {
  const rows = pairRows(db, { path, readonly, table: 'joined', keys: ['doc_id', 'member'], max, what: 'who joined' })
  const all = rows.exists
    ? db.prepare<[string], { member: string }>('SELECT member FROM joined WHERE doc_id = ? ORDER BY member')
    : undefined
  const list = (docId: string): string[] =>
    guarded(path, 'read who joined', () => (all?.all(docId) ?? []).map((r) => r.member))
  if (!rows.exists || readonly) return { list, remember: rows.refuse, forgetMember: rows.refuse, forget: rows.refuse }
  const del = db.prepare('DELETE FROM joined WHERE doc_id = ?')
  return {
    list,
    remember: rows.remember,
    forgetMember: rows.forget,
    forget: (docId) => guarded(path, 'forget who joined', () => void del.run(docId)),
  }
}
