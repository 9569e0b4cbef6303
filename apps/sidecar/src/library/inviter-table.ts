/**
 * Who brought each invitation: the sender of the group-update event that first showed a group to
 * this account, kept across restarts so "who shared it" does not fall back to the group's first
 * admin after one. Only the number is kept (nothing of the group), at most {@link MAX_INVITERS}
 * rows, the oldest forgotten first; a row goes when the invitation is accepted or declined.
 * @see docs/documents.md §1.4
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from '../replica/guarded.ts'
import type { FeatureTables, ReplicaStore } from '../replica/store.ts'

/** Invitations whose sender is remembered. */
export const MAX_INVITERS = 256

export interface InviterTable {
  get(groupId: string): string | undefined
  /** Keeps the first sender of a group (a later one changes nothing); forgets the oldest above the bound. */
  remember(groupId: string, number: string, at: number): void
  forget(groupId: string): void
}

/** The invitations' table: created on a writable open of the store (phases/store.ts). */
export const INVITER_TABLES: FeatureTables = { create: (db) => db.exec(INVITERS_SCHEMA) }

/** The inviters, as the library reads and writes them in an open store. */
export const inviterTableOf = (store: Pick<ReplicaStore, 'db' | 'path' | 'writable'>): InviterTable =>
  createInviterTable(store.db, store.path, !store.writable)

export const INVITERS_SCHEMA = `
CREATE TABLE IF NOT EXISTS inviters (group_id TEXT PRIMARY KEY, number TEXT NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;
`

export function createInviterTable(db: Database, path: string, readonly: boolean): InviterTable {
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'inviters'").get() !== undefined
  const refuse = (): never => {
    throw new StoreError(path, 'opened read-only')
  }
  if (!exists || readonly) {
    const one = exists
      ? db.prepare<[string], { number: string }>('SELECT number FROM inviters WHERE group_id = ?')
      : undefined
    return { get: (groupId) => one?.get(groupId)?.number, remember: refuse, forget: refuse }
  }
  const one = db.prepare<[string], { number: string }>('SELECT number FROM inviters WHERE group_id = ?')
  const insert = db.prepare('INSERT OR IGNORE INTO inviters (group_id, number, at) VALUES (?, ?, ?)')
  const trim = db.prepare(
    'DELETE FROM inviters WHERE group_id NOT IN (SELECT group_id FROM inviters ORDER BY at DESC, group_id LIMIT ?)',
  )
  const del = db.prepare('DELETE FROM inviters WHERE group_id = ?')
  const remember = db.transaction((groupId: string, number: string, at: number) => {
    if (insert.run(groupId, number, at).changes > 0) trim.run(MAX_INVITERS)
  })
  return {
    get: (groupId) => guarded(path, 'read an inviter', () => one.get(groupId)?.number),
    remember: (groupId, number, at) => guarded(path, 'remember an inviter', () => remember(groupId, number, at)),
    forget: (groupId) => guarded(path, 'forget an inviter', () => void del.run(groupId)),
  }
}
