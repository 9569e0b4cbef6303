/**
 * The message ids this sidecar has handed to Signal, remembered durably and bounded by age.
 *
 * An id is written *before* its body is sent and forgotten again only when the send definitely
 * failed (rejected) or its outcome is ambiguous while the sidecar still runs (the browser replays
 * it and receivers deduplicate). After a kill, an id written but perhaps never sent counts as
 * sent: it is never sent twice, and its content, already in the replica, reaches peers through
 * the sync exchange the sidecar starts on every start (docs/sidecar.md §8).
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from './guarded.ts'

export interface SentIdTable {
  /** Records ids as sent at `at` (ms), in one synced transaction. */
  remember(docId: string, messageIds: readonly string[], at: number): void
  /** Forgets ids whose send failed. */
  forget(docId: string, messageIds: readonly string[]): void
  has(docId: string, messageId: string): boolean
  count(docId: string): number
  /** Deletes ids recorded before `before` (ms); returns how many. */
  prune(before: number): number
}

export function createSentIdTable(db: Database, path: string, readonly: boolean): SentIdTable {
  const has = db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM sent_ids WHERE doc_id = ? AND message_id = ?')
  const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM sent_ids WHERE doc_id = ?')
  if (readonly) {
    const refuse = () => {
      throw new StoreError(path, 'opened read-only')
    }
    return {
      remember: refuse,
      forget: refuse,
      prune: refuse,
      has: (docId, id) => guarded(path, 'read sent ids', () => has.get(docId, id) !== undefined),
      count: (docId) => guarded(path, 'count sent ids', () => count.get(docId)?.n ?? 0),
    }
  }
  const insert = db.prepare('INSERT OR REPLACE INTO sent_ids (doc_id, message_id, at) VALUES (?, ?, ?)')
  const remove = db.prepare('DELETE FROM sent_ids WHERE doc_id = ? AND message_id = ?')
  const prune = db.prepare('DELETE FROM sent_ids WHERE at < ?')
  const rememberAll = db.transaction((docId: string, ids: readonly string[], at: number) => {
    for (const id of ids) insert.run(docId, id, at)
  })
  const forgetAll = db.transaction((docId: string, ids: readonly string[]) => {
    for (const id of ids) remove.run(docId, id)
  })
  return {
    remember: (docId, ids, at) => guarded(path, 'remember sent ids', () => rememberAll(docId, ids, at)),
    forget: (docId, ids) => guarded(path, 'forget sent ids', () => forgetAll(docId, ids)),
    has: (docId, id) => guarded(path, 'read sent ids', () => has.get(docId, id) !== undefined),
    count: (docId) => guarded(path, 'count sent ids', () => count.get(docId)?.n ?? 0),
    prune: (before) => guarded(path, 'prune sent ids', () => prune.run(before).changes),
  }
}
