/**
 * A bounded table of rows keyed by two text columns, each with the time it was kept (`at`): a row
 * is kept once (again: nothing changes), and past the bound the oldest are forgotten first. The
 * shape of who joined (library/joined-table.ts) and of the invited editors
 * (roles/promotion-table.ts); each feature keeps its own reads.
 */
import type { Database } from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { guarded } from './guarded.ts'

export interface PairRows {
  /** False for a read-only open of a store written before the table existed. */
  readonly exists: boolean
  remember(first: string, second: string, at: number): void
  forget(first: string, second: string): void
  /** What a write on a read-only open (or a missing table) does. */
  refuse(): never
}

export function pairRows(
  db: Database,
  o: { path: string; readonly: boolean; table: string; keys: readonly [string, string]; max: number; what: string },
): PairRows {
  const { path, table, max } = o
  const [a, b] = o.keys
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined
  const refuse = (): never => {
    throw new StoreError(path, 'opened read-only')
  }
  if (!exists || o.readonly) return { exists, remember: refuse, forget: refuse, refuse }
  const insert = db.prepare(`INSERT OR IGNORE INTO ${table} (${a}, ${b}, at) VALUES (?, ?, ?)`)
  const count = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`)
  const trim = db.prepare(
    `DELETE FROM ${table} WHERE (${a}, ${b}) IN (SELECT ${a}, ${b} FROM ${table} ORDER BY at, ${a}, ${b} LIMIT ?)`,
  )
  const del = db.prepare(`DELETE FROM ${table} WHERE ${a} = ? AND ${b} = ?`)
  const remember = db.transaction((first: string, second: string, at: number) => {
    if (insert.run(first, second, at).changes === 0) return
    const over = (count.get()?.n ?? 0) - max
    if (over > 0) trim.run(over)
  })
  return {
    exists,
    remember: (first, second, at) => guarded(path, `remember ${o.what}`, () => remember(first, second, at)),
    forget: (first, second) => guarded(path, `forget ${o.what}`, () => void del.run(first, second)),
    refuse,
  }
}
