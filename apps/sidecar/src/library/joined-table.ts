/**
 * Who has joined each document: the members whose sidecar has been heard in the document's group
 * (any e2e-col body from them). Signal lists a person added with a profile as a full member at
 * once, before they accepted anything; only a body from their sidecar says they are in. Kept
 * across restarts, at most {@link MAX_JOINED} rows, the oldest forgotten first.
 * @see docs/documents.md §1.5
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from '../replica/guarded.ts'
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
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'joined'").get() !== undefined
  const refuse = (): never => {
    throw new StoreError(path, 'opened read-only')
  }
  const all = exists
    ? db.prepare<[string], { member: string }>('SELECT member FROM joined WHERE doc_id = ? ORDER BY member')
    : undefined
  const list = (docId: string): string[] =>
    guarded(path, 'read who joined', () => (all?.all(docId) ?? []).map((r) => r.member))
  if (!exists || readonly) return { list, remember: refuse, forgetMember: refuse, forget: refuse }
  const insert = db.prepare('INSERT OR IGNORE INTO joined (doc_id, member, at) VALUES (?, ?, ?)')
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM joined')
  const trim = db.prepare(
    'DELETE FROM joined WHERE (doc_id, member) IN (SELECT doc_id, member FROM joined ORDER BY at, doc_id, member LIMIT ?)',
  )
  const del = db.prepare('DELETE FROM joined WHERE doc_id = ?')
  const delOne = db.prepare('DELETE FROM joined WHERE doc_id = ? AND member = ?')
  const remember = db.transaction((docId: string, member: string, at: number) => {
    if (insert.run(docId, member, at).changes === 0) return
    const over = (count.get()?.n ?? 0) - max
    if (over > 0) trim.run(over)
  })
  return {
    list,
    remember: (docId, member, at) => guarded(path, 'remember who joined', () => remember(docId, member, at)),
    forgetMember: (docId, member) => guarded(path, 'forget who joined', () => void delOne.run(docId, member)),
    forget: (docId) => guarded(path, 'forget who joined', () => void del.run(docId)),
  }
}
