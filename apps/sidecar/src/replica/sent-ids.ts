/**
 * The message ids this sidecar has taken responsibility for, with the sender id that wrote each,
 * remembered durably and bounded by age and by count (the newest `keep` are kept).
 *
 * A browser's id is written when its envelope is accepted (with its outbox row, outbox.ts), before
 * the browser's `ack`; the sidecar's own ids before their body is sent. An id is forgotten again
 * only when Signal definitely refused it. A replay of a remembered id by its sender is acknowledged
 * again and never sent twice; the same id from another sender id is refused
 * (`SIDECAR_MESSAGE_ID_TAKEN`), so one page cannot stand in for another's message (docs/sidecar.md §8.5).
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from './guarded.ts'

export interface SentIdTable {
  /** Records ids as sent by `senderId` at `at` (ms), in one synced transaction; ids already there keep their sender. */
  remember(docId: string, senderId: string, messageIds: readonly string[], at: number): void
  /** Forgets ids whose send failed. */
  forget(docId: string, messageIds: readonly string[]): void
  has(docId: string, messageId: string): boolean
  /** The sender id recorded with `messageId` ('' for a row of a store before senders were kept), or undefined. */
  senderOf(docId: string, messageId: string): string | undefined
  count(docId: string): number
  /** Deletes ids recorded before `before` (ms) and all but the newest `keep`; returns how many. */
  prune(before: number, keep: number): number
}

export function createSentIdTable(db: Database, path: string, readonly: boolean): SentIdTable {
  const has = db.prepare<[string, string], { one: number }>(
    'SELECT 1 AS one FROM sent_ids WHERE doc_id = ? AND message_id = ?',
  )
  const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM sent_ids WHERE doc_id = ?')
  // A read-only open of a schema-1 store has no sender column: its ids have no known sender ('').
  const withSender = (db.pragma('table_info(sent_ids)') as { name: string }[]).some((c) => c.name === 'sender_id')
  const sender = db.prepare<[string, string], { sender_id: string }>(
    withSender
      ? 'SELECT sender_id FROM sent_ids WHERE doc_id = ? AND message_id = ?'
      : "SELECT '' AS sender_id FROM sent_ids WHERE doc_id = ? AND message_id = ?",
  )
  const senderOf = (docId: string, id: string) => guarded(path, 'read sent ids', () => sender.get(docId, id)?.sender_id)
  if (readonly) {
    const refuse = () => {
      throw new StoreError(path, 'opened read-only')
    }
    return {
      remember: refuse,
      forget: refuse,
      prune: refuse,
      has: (docId, id) => guarded(path, 'read sent ids', () => has.get(docId, id) !== undefined),
      senderOf,
      count: (docId) => guarded(path, 'count sent ids', () => count.get(docId)?.n ?? 0),
    }
  }
  const insert = db.prepare('INSERT OR IGNORE INTO sent_ids (doc_id, message_id, at, sender_id) VALUES (?, ?, ?, ?)')
  const remove = db.prepare('DELETE FROM sent_ids WHERE doc_id = ? AND message_id = ?')
  // An id whose envelope still waits in the outbox is kept whatever its age or the count: a replay
  // of it by its page must still be recognised.
  const unsent =
    'EXISTS (SELECT 1 FROM outbox o WHERE o.doc_id = sent_ids.doc_id AND o.message_id = sent_ids.message_id)'
  const old = db.prepare(`DELETE FROM sent_ids WHERE at < ? AND NOT ${unsent}`)
  const total = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM sent_ids')
  const oldest = db.prepare(
    `DELETE FROM sent_ids WHERE (doc_id, message_id) IN (SELECT doc_id, message_id FROM sent_ids WHERE NOT ${unsent} ORDER BY at LIMIT ?)`,
  )
  const pruneAll = db.transaction((before: number, keep: number) => {
    let n = old.run(before).changes
    const over = (total.get()?.n ?? 0) - keep
    if (over > 0) n += oldest.run(over).changes
    return n
  })
  const rememberAll = db.transaction((docId: string, senderId: string, ids: readonly string[], at: number) => {
    for (const id of ids) insert.run(docId, id, at, senderId)
  })
  const forgetAll = db.transaction((docId: string, ids: readonly string[]) => {
    for (const id of ids) remove.run(docId, id)
  })
  return {
    remember: (docId, senderId, ids, at) =>
      guarded(path, 'remember sent ids', () => rememberAll(docId, senderId, ids, at)),
    forget: (docId, ids) => guarded(path, 'forget sent ids', () => forgetAll(docId, ids)),
    has: (docId, id) => guarded(path, 'read sent ids', () => has.get(docId, id) !== undefined),
    senderOf,
    count: (docId) => guarded(path, 'count sent ids', () => count.get(docId)?.n ?? 0),
    prune: (before, keep) => guarded(path, 'prune sent ids', () => pruneAll(before, keep)),
  }
}
