/**
 * The author books' rows (authorship/author-book.ts) in the replica store: per document, each Yjs
 * client id with the account it belongs to, or the member that relayed it. The book bounds how
 * many rows a document keeps; `seq` keeps their age across restarts. Like the update log, the rows
 * stay when a document is left.
 * @see docs/decisions/0023-account-derived-client-ids.md
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from '../replica/guarded.ts'
import type { FeatureTables, ReplicaStore } from '../replica/store.ts'
import type { AuthorRow, AuthorRows } from './author-book.ts'

export interface AuthorTable {
  /** The rows of one document, as its book reads and writes them. */
  rowsOf(docId: string): AuthorRows
}

/** Authorship's table: created on a writable open of the store (replica/store.ts). */
export const AUTHOR_TABLES: FeatureTables = { create: (db) => db.exec(AUTHORS_SCHEMA) }

/** Authorship's view of its table in an open store. */
export const authorTableOf = (store: Pick<ReplicaStore, 'db' | 'path' | 'writable'>): AuthorTable =>
  createAuthorTable(store.db, store.path, !store.writable)

export const AUTHORS_SCHEMA = `
CREATE TABLE IF NOT EXISTS authors (doc_id TEXT NOT NULL, client_id INTEGER NOT NULL, number TEXT NOT NULL, uuid TEXT NOT NULL, relayed INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (doc_id, client_id)) WITHOUT ROWID;
`

interface Stored {
  client_id: number
  number: string
  uuid: string
  relayed: number
}

export function createAuthorTable(db: Database, path: string, readonly: boolean): AuthorTable {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'authors'").get() !== undefined
  const select = exists
    ? db.prepare<[string], Stored>('SELECT client_id, number, uuid, relayed FROM authors WHERE doc_id = ? ORDER BY seq')
    : undefined
  const load = (docId: string): AuthorRow[] =>
    guarded(path, 'read the authors', () =>
      (select?.all(docId) ?? []).map((r) => ({
        clientId: r.client_id,
        number: r.number,
        uuid: r.uuid,
        relayed: r.relayed === 1,
      })),
    )
  const refuse = (): never => {
    throw new StoreError(path, 'opened read-only')
  }
  if (!exists || readonly)
    return { rowsOf: (docId) => ({ load: () => load(docId), put: refuse, remove: refuse, batch: refuse }) }
  const next = db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM authors')
  let seq = (next.get()?.seq ?? 0) + 1
  const upsert = db.prepare(
    'INSERT OR REPLACE INTO authors (doc_id, client_id, number, uuid, relayed, seq) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const delOne = db.prepare('DELETE FROM authors WHERE doc_id = ? AND client_id = ?')
  const removeAll = db.transaction((docId: string, ids: readonly number[]) => {
    for (const id of ids) delOne.run(docId, id)
  })
  return {
    rowsOf: (docId) => ({
      load: () => load(docId),
      put: (row) =>
        guarded(path, 'remember an author', () => {
          upsert.run(docId, row.clientId, row.number, row.uuid, row.relayed ? 1 : 0, seq++)
        }),
      remove: (ids) => guarded(path, 'forget authors', () => removeAll(docId, ids)),
      // A transaction inside another becomes a savepoint (better-sqlite3), so batches may nest.
      batch: (fn) => guarded(path, 'remember authors', () => db.transaction(fn)()),
    }),
  }
}
