/**
 * The message ids this sidecar has delivered from the group, per Signal source, remembered across
 * restarts so a copy that arrives after a restart (a sender's retry of an unanswered send, Signal
 * delivering a message twice) is still recognised. The receive path keeps its windows in memory
 * (receive/ingest.ts) and writes here in batches (receive/remembered-ids.ts); at start the windows
 * are filled from the newest rows. Bounded by age and by a row count, the oldest forgotten first.
 * @see docs/sidecar.md §8 "What the store keeps"
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from './guarded.ts'

/** One delivered message: who sent it through Signal (the source key) and its envelope key. */
export interface ReceivedId {
  readonly source: string
  readonly docId: string
  readonly senderId: string
  readonly messageId: string
  /** When it was first delivered (ms). */
  readonly at: number
}

export interface ReceivedIdTable {
  /** Records ids in one synced transaction (ids already there keep their first time). */
  record(ids: readonly ReceivedId[]): void
  /** The newest ids recorded at or after `since`, at most `limit`, oldest first. */
  recent(since: number, limit: number): ReceivedId[]
  /** Forgets ids recorded before `before` and all but the newest `keep`; returns how many. */
  prune(before: number, keep: number): number
}

export const RECEIVED_IDS_SCHEMA = `
CREATE TABLE IF NOT EXISTS received_ids (source TEXT NOT NULL, doc_id TEXT NOT NULL, sender_id TEXT NOT NULL, message_id TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (source, doc_id, sender_id, message_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS received_ids_at ON received_ids (at);
`

interface Row {
  source: string
  doc_id: string
  sender_id: string
  message_id: string
  at: number
}

export function createReceivedIdTable(db: Database, path: string, readonly: boolean): ReceivedIdTable {
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'received_ids'").get() !== undefined
  const refuse = (): never => {
    throw new StoreError(path, 'opened read-only')
  }
  const newest = exists
    ? db.prepare<[number, number], Row>(
        'SELECT * FROM (SELECT * FROM received_ids WHERE at >= ? ORDER BY at DESC LIMIT ?) ORDER BY at',
      )
    : undefined
  const recent = (since: number, limit: number): ReceivedId[] =>
    guarded(path, 'read received ids', () =>
      (newest?.all(since, limit) ?? []).map((r) => ({
        source: r.source,
        docId: r.doc_id,
        senderId: r.sender_id,
        messageId: r.message_id,
        at: r.at,
      })),
    )
  if (!exists || readonly) return { recent, record: refuse, prune: refuse }
  const insert = db.prepare(
    'INSERT OR IGNORE INTO received_ids (source, doc_id, sender_id, message_id, at) VALUES (?, ?, ?, ?, ?)',
  )
  const old = db.prepare('DELETE FROM received_ids WHERE at < ?')
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM received_ids')
  const oldest = db.prepare(
    'DELETE FROM received_ids WHERE (source, doc_id, sender_id, message_id) IN (SELECT source, doc_id, sender_id, message_id FROM received_ids ORDER BY at LIMIT ?)',
  )
  const recordAll = db.transaction((ids: readonly ReceivedId[]) => {
    for (const i of ids) insert.run(i.source, i.docId, i.senderId, i.messageId, i.at)
  })
  const pruneAll = db.transaction((before: number, keep: number) => {
    let n = old.run(before).changes
    const over = (count.get()?.n ?? 0) - keep
    if (over > 0) n += oldest.run(over).changes
    return n
  })
  return {
    recent,
    record: (ids) => guarded(path, 'remember received ids', () => recordAll(ids)),
    prune: (before, keep) => guarded(path, 'prune received ids', () => pruneAll(before, keep)),
  }
}
