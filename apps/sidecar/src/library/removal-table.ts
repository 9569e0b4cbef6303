/**
 * Why this account is out of a document: who removed it (the sender of the group update that said
 * so) and whether an editor deleted it for everyone. Kept across restarts, so a page still says
 * "Alice stopped sharing this document with you" after one. At most {@link MAX_REMOVALS} rows, the
 * oldest forgotten first; a row goes with its document (forgotten, or accepted again).
 * @see docs/documents.md §1.4
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from '../replica/guarded.ts'
import type { FeatureTables, ReplicaStore } from '../replica/store.ts'

/** Documents whose removal is remembered. */
export const MAX_REMOVALS = 256

/** What is known of one removal: `by` is undefined when no update named who. */
export interface Removal {
  readonly by: string | undefined
  readonly deleted: boolean
}

export interface RemovalTable {
  get(docId: string): Removal | undefined
  /**
   * Completes what is known: a later, better-informed look adds who or "deleted", never takes
   * them away. Forgets the oldest above the bound.
   */
  note(docId: string, by: string | undefined, deleted: boolean, at: number): void
  forget(docId: string): void
}

/** The removals' table: created on a writable open of the store (phases/store.ts). */
export const REMOVAL_TABLES: FeatureTables = { create: (db) => db.exec(REMOVALS_SCHEMA) }

/** The removals, as the library reads and writes them in an open store. */
export const removalTableOf = (store: Pick<ReplicaStore, 'db' | 'path' | 'writable'>): RemovalTable =>
  createRemovalTable(store.db, store.path, !store.writable)

export const REMOVALS_SCHEMA = `
CREATE TABLE IF NOT EXISTS removals (doc_id TEXT PRIMARY KEY, by_number TEXT NOT NULL, deleted INTEGER NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;
`

interface Row {
  by_number: string
  deleted: number
}

const fromRow = (r: Row | undefined): Removal | undefined =>
  r === undefined ? undefined : { by: r.by_number === '' ? undefined : r.by_number, deleted: r.deleted === 1 }

export function createRemovalTable(db: Database, path: string, readonly: boolean): RemovalTable {
  // A store written before the table existed has none when opened read-only.
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'removals'").get() !== undefined
  const refuse = (): never => {
    throw new StoreError(path, 'opened read-only')
  }
  const one = exists ? db.prepare<[string], Row>('SELECT by_number, deleted FROM removals WHERE doc_id = ?') : undefined
  const get = (docId: string): Removal | undefined => guarded(path, 'read a removal', () => fromRow(one?.get(docId)))
  if (!exists || readonly) return { get, note: refuse, forget: refuse }
  const upsert = db.prepare(
    `INSERT INTO removals (doc_id, by_number, deleted, at) VALUES (?, ?, ?, ?)
     ON CONFLICT (doc_id) DO UPDATE SET
       by_number = CASE WHEN excluded.by_number <> '' THEN excluded.by_number ELSE by_number END,
       deleted = max(deleted, excluded.deleted)`,
  )
  const trim = db.prepare(
    'DELETE FROM removals WHERE doc_id NOT IN (SELECT doc_id FROM removals ORDER BY at DESC, doc_id LIMIT ?)',
  )
  const del = db.prepare('DELETE FROM removals WHERE doc_id = ?')
  const note = db.transaction((docId: string, by: string, deleted: number, at: number) => {
    if (upsert.run(docId, by, deleted, at).changes > 0) trim.run(MAX_REMOVALS)
  })
  return {
    get,
    note: (docId, by, deleted, at) =>
      guarded(path, 'remember a removal', () => note(docId, by ?? '', deleted ? 1 : 0, at)),
    forget: (docId) => guarded(path, 'forget a removal', () => void del.run(docId)),
  }
}
