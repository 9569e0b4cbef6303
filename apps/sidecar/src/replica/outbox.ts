/**
 * The sidecar's durable send queue: envelopes from this machine's browsers that Signal has not
 * accepted yet, as the frames the browsers sent. A row is written, with the id's sent_ids row, in
 * one synced transaction *before* the browser's `ack` ("saved by your sidecar": the browser may
 * forget it), and deleted once Signal accepted it or definitely refused it. On start the rows are
 * queued again, merged into one update when there are several (docs/sidecar.md §4.3, §8.5).
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from './guarded.ts'

export interface OutboxRow {
  readonly messageId: string
  readonly senderId: string
  readonly frame: Uint8Array
}

export interface OutboxTable {
  /** Stores the envelope and remembers its id as this sender's, atomically (synced on return). */
  accept(docId: string, senderId: string, messageId: string, frame: Uint8Array, at: number): void
  /** Deletes the rows of these ids (sent or refused). */
  remove(docId: string, messageIds: readonly string[]): void
  /** The document's rows, oldest first. */
  list(docId: string): OutboxRow[]
  count(docId: string): number
}

export function createOutboxTable(db: Database, path: string, readonly: boolean): OutboxTable {
  // A read-only open of a store written before the outbox existed has no such table: it is empty.
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outbox'").get() !== undefined
  if (!exists) {
    const refuse = () => {
      throw new StoreError(path, 'opened read-only')
    }
    return { accept: refuse, remove: refuse, list: () => [], count: () => 0 }
  }
  const select = db.prepare<[string], { message_id: string; sender_id: string; frame: Buffer }>(
    'SELECT message_id, sender_id, frame FROM outbox WHERE doc_id = ? ORDER BY id',
  )
  const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM outbox WHERE doc_id = ?')
  const list = (docId: string) =>
    guarded(path, 'read the outbox', () =>
      select.all(docId).map((r) => ({
        messageId: r.message_id,
        senderId: r.sender_id,
        frame: new Uint8Array(r.frame.buffer, r.frame.byteOffset, r.frame.byteLength),
      })),
    )
  const countOf = (docId: string) => guarded(path, 'count the outbox', () => count.get(docId)?.n ?? 0)
  if (readonly) {
    const refuse = () => {
      throw new StoreError(path, 'opened read-only')
    }
    return { accept: refuse, remove: refuse, list, count: countOf }
  }
  const insert = db.prepare(
    'INSERT OR IGNORE INTO outbox (doc_id, message_id, sender_id, frame, at) VALUES (?, ?, ?, ?, ?)',
  )
  const sent = db.prepare('INSERT OR IGNORE INTO sent_ids (doc_id, message_id, at, sender_id) VALUES (?, ?, ?, ?)')
  const del = db.prepare('DELETE FROM outbox WHERE doc_id = ? AND message_id = ?')
  const acceptOne = db.transaction(
    (docId: string, senderId: string, messageId: string, frame: Uint8Array, at: number) => {
      insert.run(docId, messageId, senderId, frame, at)
      sent.run(docId, messageId, at, senderId)
    },
  )
  const removeAll = db.transaction((docId: string, ids: readonly string[]) => {
    for (const id of ids) del.run(docId, id)
  })
  return {
    accept: (docId, senderId, messageId, frame, at) =>
      guarded(path, 'store an outgoing envelope', () => acceptOne(docId, senderId, messageId, frame, at)),
    remove: (docId, ids) => guarded(path, 'remove sent envelopes', () => removeAll(docId, ids)),
    list,
    count: countOf,
  }
}
