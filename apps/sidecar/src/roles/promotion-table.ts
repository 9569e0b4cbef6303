/**
 * Editors this account invited before Signal let them in (roles/promotions.ts), kept across
 * restarts so an invitee who joins after the sharer's sidecar restarted is still made an editor.
 * Only the group and the number are kept, at most {@link MAX_PROMOTIONS} rows, the oldest
 * forgotten first (they then view until an editor changes it).
 * @see docs/documents.md "Roles"
 */
import type { Database } from 'better-sqlite3'
import { guarded } from '../replica/guarded.ts'
import { pairRows } from '../replica/pair-rows.ts'
import type { FeatureTables, ReplicaStore } from '../replica/store.ts'

/** Invited editors remembered at once. */
export const MAX_PROMOTIONS = 1000

export interface PromotionTable {
  /** Every remembered (group, number), oldest first. */
  list(): { groupId: string; number: string }[]
  /** Remembers one (again: nothing changes); forgets the oldest above the bound. */
  remember(groupId: string, number: string, at: number): void
  forget(groupId: string, number: string): void
}

/** The invited editors' table: created on a writable open of the store (phases/store.ts). */
export const PROMOTION_TABLES: FeatureTables = { create: (db) => db.exec(PROMOTIONS_SCHEMA) }

/** The invited editors, as roles/promotions.ts reads and writes them in an open store. */
export const promotionTableOf = (store: Pick<ReplicaStore, 'db' | 'path' | 'writable'>): PromotionTable =>
  createPromotionTable(store.db, store.path, !store.writable)

export const PROMOTIONS_SCHEMA = `
CREATE TABLE IF NOT EXISTS promotions (group_id TEXT NOT NULL, number TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (group_id, number)) WITHOUT ROWID;
`

export function createPromotionTable(
  db: Database,
  path: string,
  readonly: boolean,
  max = MAX_PROMOTIONS,
): PromotionTable {
  const rows = pairRows(db, {
    path,
    readonly,
    table: 'promotions',
    keys: ['group_id', 'number'],
    max,
    what: 'an invited editor',
  })
  const all = rows.exists
    ? db.prepare<[], { group_id: string; number: string }>(
        'SELECT group_id, number FROM promotions ORDER BY at, group_id, number',
      )
    : undefined
  const list = () =>
    guarded(path, 'read invited editors', () =>
      (all?.all() ?? []).map((r) => ({ groupId: r.group_id, number: r.number })),
    )
  return { list, remember: rows.remember, forget: rows.forget }
}
