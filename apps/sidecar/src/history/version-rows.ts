/**
 * How a document's versions and changes are kept in the history table: a spell's changes merged
 * per author, a version read whole from the differences it is stored as, a version dropped by
 * merging its bytes into those based on it, and the retention pass that logs what it dropped.
 * @see docs/decisions/0018-document-history.md
 */
import * as Y from 'yjs'
import type { Logger } from '../ops/logger.ts'
import type { HistoryTable, StoredChange } from './history-table.ts'
import { versionsToDrop, type RetentionPolicy } from './retention.ts'

const DAY_MS = 86_400_000

/**
 * A version is stored as its difference from the one before (decisions/0018: 72 × the state on
 * the paper trace as whole states, about 2 × as v2 differences), and whole every this many, so
 * reading one merges at most this many rows (64: smaller than 32 and 128 on the trace, bench §10).
 */
export const WHOLE_EVERY = 64

/** A spell settled: the newest change id, the spell's changes merged into one update, and the change holding exactly that, if one. */
export interface SettledSpell {
  readonly lastChange: number
  /** Every change of the spell merged, made when asked (undefined: the spell is empty). */
  whole(): Uint8Array | undefined
  /** A spell of one author and origin, merged now: the change whose bytes are `whole`. */
  readonly single: number | undefined
}

/**
 * Settles the spell: its changes (settled ones after `after`, then the stamped update rows) merged
 * into one per author and origin (revert undoes per author).
 */
export function mergeSpell(table: HistoryTable, docId: string, after: number): SettledSpell {
  const settled = table.changesAfter(docId, after)
  const pending = table.pending(docId)
  const spell = [...settled, ...pending]
  const newest = settled.at(-1)?.id ?? after
  const groups = new Map<string, Omit<StoredChange, 'id'>[]>()
  for (const c of spell) {
    const key = `${c.via}\u0000${c.author}`
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [c])
    else group.push(c)
  }
  const wholeOf = (): Uint8Array | undefined =>
    spell.length === 0 ? undefined : Y.mergeUpdates(spell.map((c) => c.data))
  // Nothing stamped, and nothing two changes could be merged into: the log stays as it is.
  if (pending.length === 0 && groups.size === settled.length)
    return { lastChange: newest, whole: wholeOf, single: undefined }
  const merged = [...groups.values()].map((cs) => {
    const first = cs[0] as Omit<StoredChange, 'id'>
    return { at: first.at, via: first.via, author: first.author, data: Y.mergeUpdates(cs.map((c) => c.data)) }
  })
  const lastChange = table.settle(docId, after, merged, pending.at(-1)?.row ?? 0)
  // One group: its merge is the whole spell's, made once.
  const single = merged.length === 1 ? merged[0] : undefined
  return {
    lastChange,
    whole: single === undefined ? wholeOf : () => single.data,
    single: single === undefined ? undefined : lastChange,
  }
}

/** A version's whole state: its row merged after the rows it is a difference from. */
export function resolveVersion(table: HistoryTable, docId: string, id: number): Uint8Array | undefined {
  const parts: Uint8Array[] = []
  let next: number | undefined = id
  while (next !== undefined && parts.length <= 4 * WHOLE_EVERY) {
    const row = table.stored(docId, next)
    if (row === undefined) return undefined
    parts.unshift(row.state)
    next = row.base
  }
  return parts.length === 1 ? parts[0] : Y.mergeUpdates(parts)
}

/**
 * Drops a version; those stored as a difference from it are stored again from their whole state,
 * re-encoded through a document (deleted content collected), as the difference from the dropped
 * one's base (or whole). Merging the two rows' bytes instead would keep every deleted insert, so
 * the bytes a dropped version held would only move to the next one.
 */
function dropVersion(table: HistoryTable, docId: string, id: number): void {
  const row = table.stored(docId, id)
  if (row === undefined) return
  const baseState = row.base === undefined ? undefined : resolveVersion(table, docId, row.base)
  for (const child of table.basedOn(docId, id)) {
    const whole = resolveVersion(table, docId, child)
    const own = table.stored(docId, child)
    if (whole === undefined || own === undefined) continue
    const doc = new Y.Doc()
    try {
      Y.applyUpdate(doc, whole)
      if (baseState === undefined) table.rebase(docId, child, Y.encodeStateAsUpdate(doc), undefined)
      else table.rebase(docId, child, Y.encodeStateAsUpdate(doc, Y.encodeStateVectorFromUpdate(baseState)), row.base)
    } finally {
      doc.destroy()
    }
  }
  table.dropVersions(docId, [id])
}

/** Drops the versions the policy no longer keeps and the changes past the window, and logs it. */
export function pruneHistory(
  table: HistoryTable,
  docId: string,
  now: number,
  policy: { readonly changeDays: number; readonly retention: RetentionPolicy },
  logger: Logger,
): void {
  const versions = table.versions(docId, undefined, 100_000)
  const dropped = versionsToDrop(versions, now, policy.retention)
  const oldChanges = table.dropChangesBefore(docId, now - policy.changeDays * DAY_MS)
  if (dropped.length > 0) {
    table.atomically(() => {
      for (const d of dropped) dropVersion(table, docId, d.id)
    })
    const byReason: Record<string, number> = {}
    for (const d of dropped) byReason[d.reason] = (byReason[d.reason] ?? 0) + 1
    logger.info(
      {
        docId,
        dropped: dropped.length,
        byReason,
        oldest: new Date(Math.min(...dropped.map((d) => d.at))).toISOString(),
      },
      'history: dropped versions the retention policy no longer keeps',
    )
  }
  if (oldChanges > 0)
    logger.info({ docId, changes: oldChanges }, 'history: dropped changes older than the change window')
  const bound = keepByteBound(table, docId, policy.retention)
  if (bound.versions + bound.changes > 0)
    logger.info(
      { docId, ...bound, maxBytes: policy.retention.maxBytes },
      'history: dropped the oldest to keep the byte bound',
    )
  if (dropped.length + oldChanges + bound.versions + bound.changes > 0) table.reclaim()
}

// Rounds of the byte bound: each drops the oldest up to a moment; copies and rebasing may leave a little more to drop.
const BOUND_ROUNDS = 16

/**
 * Keeps the document's versions and changes together within `maxBytes` as stored, dropping the
 * oldest first by time, both kinds up to one moment: the changes up to the excess (never those
 * after the newest version) and the versions up to the same moment, so what is left is whole
 * history from then on (a version whose difference is a dropped change takes a copy of it). With
 * no change left to drop, the oldest version goes. The newest version is always kept. How many of
 * each it dropped.
 */
function keepByteBound(
  table: HistoryTable,
  docId: string,
  retention: RetentionPolicy,
): { versions: number; changes: number } {
  const count = { versions: 0, changes: 0 }
  for (let round = 0; round < BOUND_ROUNDS; round++) {
    const stored = table.storedBytes(docId)
    const excess = stored.versions + stored.changes - retention.maxBytes
    if (excess <= 0) break
    const newestFirst = table.versions(docId, undefined, 100_000)
    const newest = newestFirst[0]
    let cutoff: number | undefined
    let freed = 0
    for (const c of table.changeSizes(docId)) {
      if (newest !== undefined && c.at >= newest.at) break
      freed += c.bytes
      cutoff = c.at
      if (freed >= excess) break
    }
    cutoff ??= newestFirst.length > 1 ? newestFirst.at(-1)?.at : undefined
    if (cutoff === undefined) break
    const moment = cutoff
    const old = newestFirst.slice(1).filter((v) => v.at <= moment)
    table.atomically(() => {
      for (const v of old) dropVersion(table, docId, v.id)
    })
    count.versions += old.length
    count.changes += table.dropChangesBefore(docId, moment + 1)
  }
  return count
}
