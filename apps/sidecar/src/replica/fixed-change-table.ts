/**
 * When each fixed document (E2E_COL_DOCUMENTS) last changed on this machine. A fixed document has
 * no row in the documents table (doc-table.ts keeps the change time of the others), so without
 * this its "last change" was lost at every restart. One row per fixed document; the rows are
 * bounded by the configuration, never by what arrives from Signal.
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from './guarded.ts'

export interface FixedChangeTable {
  /** ms of the last change kept, or undefined. */
  get(docId: string): number | undefined
  /** Keeps `at` unless a later time is kept already. */
  touch(docId: string, at: number): void
}

export const FIXED_CHANGES_SCHEMA = `
CREATE TABLE IF NOT EXISTS fixed_changes (doc_id TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID;
`

export function createFixedChangeTable(db: Database, path: string, readonly: boolean): FixedChangeTable {
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fixed_changes'").get() !== undefined
  const one = exists ? db.prepare<[string], { at: number }>('SELECT at FROM fixed_changes WHERE doc_id = ?') : undefined
  const get = (docId: string): number | undefined => guarded(path, 'read a change time', () => one?.get(docId)?.at)
  if (!exists || readonly)
    return {
      get,
      touch: () => {
        throw new StoreError(path, 'opened read-only')
      },
    }
  const upsert = db.prepare(
    'INSERT INTO fixed_changes (doc_id, at) VALUES (?, ?) ON CONFLICT (doc_id) DO UPDATE SET at = excluded.at WHERE excluded.at > at',
  )
  return {
    get,
    touch: (docId, at) => guarded(path, 'record a change time', () => void upsert.run(docId, at)),
  }
}
