/**
 * The store's history of every document: each change with its time and where it came from (this
 * person's page, the sidecar itself, or which member's Signal account sent it), and the versions
 * (the document's state at a moment, as a Yjs update, with the people whose changes it
 * holds). While a spell of edits goes on, its changes are the update log's own rows, stamped with
 * time and origin (no second row per edit); when the spell becomes a version they are merged per
 * author into the change log and their stamps cleared, so the log stays short. Versions are
 * thinned by retention.ts.
 * @see docs/sidecar.md "History"
 */
import type { Database } from 'better-sqlite3'
import * as Y from 'yjs'
import { StoreError } from '../errors.ts'
import { guarded } from '../replica/guarded.ts'
import type { FeatureTables, ReplicaStore, UpdateStamp } from '../replica/store.ts'

export type ChangeVia = 'page' | 'member' | 'sidecar'

export interface StoredChange {
  readonly id: number
  readonly at: number
  readonly via: ChangeVia
  /** A member's number or Signal id; this account's number for a page or the sidecar. */
  readonly author: string
  readonly data: Uint8Array
}

export interface VersionRow {
  readonly id: number
  readonly at: number
  /** Why it was recorded: quiet, catch-up, restore, closing. */
  readonly reason: string
  readonly authors: readonly string[]
  readonly chars: number | undefined
  /** The last change (id) it holds. */
  readonly lastChange: number
  readonly bytes: number
}

export type { UpdateStamp } from '../replica/store.ts'

/** A change of the spell going on: an update log row with its stamp (`row`: the update's id). */
export interface PendingChange extends Omit<StoredChange, 'id'> {
  readonly row: number
}

export interface HistoryTable {
  /** The stamp an update row carries for a change (a new author is given its code here). */
  stamp(change: Omit<StoredChange, 'id' | 'data'>): UpdateStamp
  /** The spell's changes not yet settled: the stamped update rows, oldest first. */
  pending(docId: string): PendingChange[]
  /** Settled changes with id > `afterId`, oldest first. */
  changesAfter(docId: string, afterId: number): StoredChange[]
  /**
   * Settles a spell, atomically: the changes with id > `afterId` are replaced by `merged`, and the
   * stamps of update rows up to `uptoRow` are cleared (those changes are in `merged`). The newest
   * change id then (`afterId` when `merged` is empty).
   */
  settle(docId: string, afterId: number, merged: readonly Omit<StoredChange, 'id'>[], uptoRow: number): number
  /** Deletes the changes older than `at` (a version whose difference is one of them takes a copy first); how many. */
  dropChangesBefore(docId: string, at: number): number
  /** The oldest change kept (ms), undefined when none. */
  oldestChangeAt(docId: string): number | undefined
  /**
   * Adds a version: `state` is the whole state, or (with `base`) the difference from version
   * `base`, which the version's state is merged from (doc-history.ts). With `sameAsChange`, the
   * difference is that change's bytes (a spell of one author): it is read from the change log, and
   * copied into the version only when the change is dropped.
   */
  addVersion(
    docId: string,
    v: Omit<VersionRow, 'id' | 'bytes'>,
    state: Uint8Array,
    base?: number,
    sameAsChange?: number,
  ): VersionRow
  /** Versions newest first, older than `before` (ms) when given, at most `limit`. */
  versions(docId: string, before: number | undefined, limit: number): VersionRow[]
  /** The newest version at or before `at`; undefined when none is (never a later one: it would hold changes made after `at`). */
  versionAtOrBefore(docId: string, at: number): VersionRow | undefined
  version(docId: string, id: number): VersionRow | undefined
  /** The version's stored bytes and the version they are a difference from (undefined: whole). */
  stored(docId: string, id: number): { state: Uint8Array; base: number | undefined } | undefined
  /** The versions stored as a difference from `base`. */
  basedOn(docId: string, base: number): number[]
  /** Replaces a version's stored bytes and base (when the version it was based on is dropped). */
  rebase(docId: string, id: number, state: Uint8Array, base: number | undefined): void
  /** Runs `fn` in one transaction. */
  atomically<T>(fn: () => T): T
  dropVersions(docId: string, ids: readonly number[]): void
  /** Bytes the document's versions and changes take as stored (v2 rows at their stored length). */
  storedBytes(docId: string): { versions: number; changes: number }
  /** Each settled change's time and stored length, oldest first (the byte bound drops from the front). */
  changeSizes(docId: string): { at: number; bytes: number }[]
  /** Gives the pages freed by dropped rows back to the file system (an incrementally vacuumed store). */
  reclaim(): void
}

/** History's tables: created, then migrated, on a writable open of the store (replica/store.ts). */
export const HISTORY_TABLES: FeatureTables = {
  create(db) {
    db.exec(HISTORY_SCHEMA)
    migrateHistoryFormat(db)
  },
}

/** History's view of its tables in an open store. */
export const historyTableOf = (store: Pick<ReplicaStore, 'db' | 'path' | 'writable'>): HistoryTable =>
  createHistoryTable(store.db, store.path, !store.writable)

export const HISTORY_SCHEMA = `
CREATE TABLE IF NOT EXISTS history_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, at INTEGER NOT NULL, via TEXT NOT NULL, author TEXT NOT NULL, data BLOB NOT NULL, format INTEGER NOT NULL DEFAULT 1);
CREATE INDEX IF NOT EXISTS history_changes_doc ON history_changes (doc_id, id);
CREATE TABLE IF NOT EXISTS history_versions (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, at INTEGER NOT NULL, reason TEXT NOT NULL, authors TEXT NOT NULL, chars INTEGER, last_change INTEGER NOT NULL, state BLOB NOT NULL, base INTEGER, format INTEGER NOT NULL DEFAULT 1, change_ref INTEGER);
CREATE INDEX IF NOT EXISTS history_versions_doc ON history_versions (doc_id, at);
CREATE TABLE IF NOT EXISTS history_people (id INTEGER PRIMARY KEY, author TEXT NOT NULL UNIQUE);
`

/** How a change's origin is kept in an update row's stamp. */
const VIA_CODES: Readonly<Record<ChangeVia, number>> = { page: 1, member: 2, sidecar: 3 }
const VIA_OF = new Map(Object.entries(VIA_CODES).map(([via, code]) => [code, via as ChangeVia]))

/**
 * Adds the `format` column to a store whose history tables were made before it (every row there
 * is a v1 update). Run once the schema exists, on a writable store.
 */
export function migrateHistoryFormat(db: Database): void {
  for (const table of ['history_changes', 'history_versions']) {
    const columns = (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name)
    if (!columns.includes('format')) db.exec(`ALTER TABLE ${table} ADD COLUMN format INTEGER NOT NULL DEFAULT 1`)
  }
  // Schema 4: a version's difference may be a change's bytes, read from the change log.
  const columns = (db.pragma('table_info(history_versions)') as { name: string }[]).map((c) => c.name)
  if (!columns.includes('change_ref')) db.exec('ALTER TABLE history_versions ADD COLUMN change_ref INTEGER')
}

/**
 * Yjs's v2 encoding stores merged changes and versions 2–14 × smaller than v1 on the paper trace
 * (decisions/0018); a single change is kept as it came (v1), since it is merged at the next
 * version anyway. Callers only ever see v1.
 */
const V2 = 2
const toV1 = (bytes: Uint8Array, format: number): Uint8Array =>
  format === V2 ? Y.convertUpdateFormatV2ToV1(bytes) : bytes

/** The `format` column to select: a store from before it, opened read-only (never migrated), is all v1. */
function formatColumn(db: Database, exists: boolean): string {
  const has =
    exists && (db.pragma('table_info(history_versions)') as { name: string }[]).some((c) => c.name === 'format')
  return has ? 'format' : '1 AS format'
}

interface ChangeRecord {
  id: number
  at: number
  via: string
  author: string
  data: Buffer
  format: number
}
interface VersionRecord {
  id: number
  at: number
  reason: string
  authors: string
  chars: number | null
  last_change: number
  bytes: number
}

const bytesOf = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

// Authors are kept one per line: a number or a Signal id never holds a line break.
function toVersion(r: VersionRecord): VersionRow {
  return {
    id: r.id,
    at: r.at,
    reason: r.reason,
    authors: r.authors.split('\n').filter((a) => a !== ''),
    chars: r.chars ?? undefined,
    lastChange: r.last_change,
    bytes: r.bytes,
  }
}

/** A version's columns; its bytes count the change its difference is read from, if any (retention's byte bound). */
const versionColumns = (hasRef: boolean): string =>
  hasRef
    ? 'id, at, reason, authors, chars, last_change, length(state) + coalesce((SELECT length(c.data) FROM history_changes c WHERE c.id = history_versions.change_ref), 0) AS bytes'
    : 'id, at, reason, authors, chars, last_change, length(state) AS bytes'

/** The history of a store written before history existed, opened read-only: empty; writing throws. */
function noHistory(writable: () => void): HistoryTable {
  return {
    stamp: () => writable() as never,
    pending: () => [],
    changesAfter: () => [],
    settle: () => writable() as never,
    dropChangesBefore: () => 0,
    oldestChangeAt: () => undefined,
    addVersion: () => writable() as never,
    versions: () => [],
    versionAtOrBefore: () => undefined,
    version: () => undefined,
    stored: () => undefined,
    basedOn: () => [],
    rebase: writable,
    atomically: (fn) => fn(),
    dropVersions: writable,
    storedBytes: () => ({ versions: 0, changes: 0 }),
    changeSizes: () => [],
    reclaim: () => {},
  }
}

/** What the store's shape allows: the format column, change references, stamped update rows, writing. */
interface TableShape {
  readonly format: string
  readonly hasRef: boolean
  readonly stamped: boolean
  readonly readonly: boolean
}

function changeStatements(db: Database, { format, hasRef, stamped, readonly }: TableShape) {
  return {
    addChange: db.prepare(
      'INSERT INTO history_changes (doc_id, at, via, author, data, format) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    person: stamped
      ? db.prepare<[string], { id: number }>('SELECT id FROM history_people WHERE author = ?')
      : undefined,
    addPerson: readonly || !stamped ? undefined : db.prepare('INSERT INTO history_people (author) VALUES (?)'),
    pending: stamped
      ? db.prepare<[string], { id: number; at: number; via: number; author: string; data: Buffer }>(
          "SELECT u.id, u.at, u.via, coalesce(p.author, '') AS author, u.data FROM updates u LEFT JOIN history_people p ON p.id = u.author WHERE u.doc_id = ? AND u.at IS NOT NULL ORDER BY u.id",
        )
      : undefined,
    unstamp:
      readonly || !stamped
        ? undefined
        : db.prepare(
            'UPDATE updates SET at = NULL, via = NULL, author = NULL WHERE doc_id = ? AND id <= ? AND at IS NOT NULL',
          ),
    changesAfter: db.prepare<[string, number], ChangeRecord>(
      `SELECT id, at, via, author, data, ${format} FROM history_changes WHERE doc_id = ? AND id > ? ORDER BY id`,
    ),
    deleteAfter: db.prepare('DELETE FROM history_changes WHERE doc_id = ? AND id > ?'),
    dropBefore: db.prepare('DELETE FROM history_changes WHERE doc_id = ? AND at < ?'),
    keepRefs: hasRef
      ? db.prepare(
          'UPDATE history_versions SET state = (SELECT c.data FROM history_changes c WHERE c.id = change_ref), format = (SELECT c.format FROM history_changes c WHERE c.id = change_ref), change_ref = NULL WHERE doc_id = ? AND change_ref IN (SELECT id FROM history_changes WHERE doc_id = ? AND at < ?)',
        )
      : undefined,
    oldest: db.prepare<[string, string], { at: number | null }>(
      stamped
        ? 'SELECT min(at) AS at FROM (SELECT at FROM history_changes WHERE doc_id = ? UNION ALL SELECT at FROM updates WHERE doc_id = ? AND at IS NOT NULL)'
        : 'SELECT min(at) AS at FROM history_changes WHERE doc_id = ? AND ? IS NOT NULL',
    ),
  }
}

function versionStatements(db: Database, { format, hasRef }: TableShape) {
  const VERSION_COLUMNS = versionColumns(hasRef)
  return {
    // Without the column (a schema-3 store opened read-only) nothing is ever written.
    addVersion: hasRef
      ? db.prepare(
          'INSERT INTO history_versions (doc_id, at, reason, authors, chars, last_change, state, base, format, change_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 2, ?)',
        )
      : undefined,
    versions: db.prepare<[string, number, number], VersionRecord>(
      `SELECT ${VERSION_COLUMNS} FROM history_versions WHERE doc_id = ? AND at < ? ORDER BY at DESC, id DESC LIMIT ?`,
    ),
    atOrBefore: db.prepare<[string, number], VersionRecord>(
      `SELECT ${VERSION_COLUMNS} FROM history_versions WHERE doc_id = ? AND at <= ? ORDER BY at DESC, id DESC LIMIT 1`,
    ),
    version: db.prepare<[string, number], VersionRecord>(
      `SELECT ${VERSION_COLUMNS} FROM history_versions WHERE doc_id = ? AND id = ?`,
    ),
    stored: db.prepare<
      [string, number],
      {
        state: Buffer
        base: number | null
        format: number
        ref: number | null
        refData: Buffer | null
        refFormat: number
      }
    >(
      hasRef
        ? 'SELECT v.state, v.base, v.format, v.change_ref AS ref, c.data AS refData, c.format AS refFormat FROM history_versions v LEFT JOIN history_changes c ON c.id = v.change_ref WHERE v.doc_id = ? AND v.id = ?'
        : `SELECT state, base, ${format}, NULL AS ref, NULL AS refData, 1 AS refFormat FROM history_versions WHERE doc_id = ? AND id = ?`,
    ),
    basedOn: db.prepare<[string, number], { id: number }>(
      'SELECT id FROM history_versions WHERE doc_id = ? AND base = ?',
    ),
    rebase: hasRef
      ? db.prepare(
          'UPDATE history_versions SET state = ?, base = ?, format = 2, change_ref = NULL WHERE doc_id = ? AND id = ?',
        )
      : undefined,
    dropVersion: db.prepare('DELETE FROM history_versions WHERE doc_id = ? AND id = ?'),
    changeSizes: db.prepare<[string], { at: number; bytes: number }>(
      'SELECT at, length(data) AS bytes FROM history_changes WHERE doc_id = ? ORDER BY id',
    ),
    storedBytes: db.prepare<[string, string], { versions: number; changes: number }>(
      'SELECT (SELECT coalesce(sum(length(state)), 0) FROM history_versions WHERE doc_id = ?) AS versions, (SELECT coalesce(sum(length(data)), 0) FROM history_changes WHERE doc_id = ?) AS changes',
    ),
  }
}

export function createHistoryTable(db: Database, path: string, readonly: boolean): HistoryTable {
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_versions'").get() !== undefined
  const format = formatColumn(db, exists)
  // A store from before versions could read their difference from the change log (schema 3), opened read-only.
  const hasRef = (db.pragma('table_info(history_versions)') as { name: string }[]).some((c) => c.name === 'change_ref')
  const writable = () => {
    if (readonly || !exists) throw new StoreError(path, 'opened read-only')
  }
  // A store written before history existed, opened read-only: it has none.
  if (!exists) return noHistory(writable)
  // A store from before stamped update rows (schema 3), opened read-only: no change is pending.
  const stamped = (db.pragma('table_info(updates)') as { name: string }[]).some((c) => c.name === 'at')
  const shape = { format, hasRef, stamped, readonly }
  const q = { ...changeStatements(db, shape), ...versionStatements(db, shape) }
  const settle = db.transaction(
    (docId: string, afterId: number, merged: readonly Omit<StoredChange, 'id'>[], uptoRow: number): number => {
      q.deleteAfter.run(docId, afterId)
      let newest = afterId
      for (const c of merged)
        newest = Number(
          q.addChange.run(docId, c.at, c.via, c.author, Y.convertUpdateFormatV1ToV2(c.data), V2).lastInsertRowid,
        )
      q.unstamp?.run(docId, uptoRow)
      return newest
    },
  )
  // Authors are few (this account and the group's members): their codes are kept in memory once read.
  const codes = new Map<string, number>()
  const codeOf = (author: string): number => {
    const known = codes.get(author) ?? q.person?.get(author)?.id
    const code = known ?? Number(q.addPerson?.run(author).lastInsertRowid)
    codes.set(author, code)
    return code
  }
  const dropChanges = db.transaction((docId: string, at: number): number => {
    q.keepRefs?.run(docId, docId, at)
    return q.dropBefore.run(docId, at).changes
  })
  const drop = db.transaction((docId: string, ids: readonly number[]) => {
    for (const id of ids) q.dropVersion.run(docId, id)
  })
  return {
    stamp: (c) =>
      guarded(path, 'record a change', () => {
        writable()
        return { at: c.at, via: VIA_CODES[c.via], author: codeOf(c.author) }
      }),
    pending: (docId) =>
      guarded(path, 'read the changes', () =>
        (q.pending?.all(docId) ?? []).map((r) => ({
          row: r.id,
          at: r.at,
          via: VIA_OF.get(r.via) ?? 'sidecar',
          author: r.author,
          data: bytesOf(r.data),
        })),
      ),
    changesAfter: (docId, afterId) =>
      guarded(path, 'read the changes', () =>
        q.changesAfter.all(docId, afterId).map((r) => ({
          id: r.id,
          at: r.at,
          via: r.via as ChangeVia,
          author: r.author,
          data: toV1(bytesOf(r.data), r.format),
        })),
      ),
    settle: (docId, afterId, merged, uptoRow) =>
      guarded(path, 'merge the changes', () => {
        writable()
        return settle(docId, afterId, merged, uptoRow)
      }),
    dropChangesBefore: (docId, at) =>
      guarded(path, 'drop old changes', () => {
        writable()
        return dropChanges(docId, at)
      }),
    oldestChangeAt: (docId) => guarded(path, 'read the changes', () => q.oldest.get(docId, docId)?.at ?? undefined),
    addVersion: (docId, v, state, base, sameAsChange) =>
      guarded(path, 'record a version', () => {
        writable()
        const stored = Y.convertUpdateFormatV1ToV2(state)
        const id = Number(
          q.addVersion?.run(
            docId,
            v.at,
            v.reason,
            v.authors.join('\n'),
            v.chars ?? null,
            v.lastChange,
            sameAsChange === undefined ? stored : new Uint8Array(0),
            base ?? null,
            sameAsChange ?? null,
          )?.lastInsertRowid,
        )
        return { ...v, id, bytes: stored.byteLength }
      }),
    versions: (docId, before, limit) =>
      guarded(path, 'list versions', () =>
        q.versions.all(docId, before ?? Number.MAX_SAFE_INTEGER, limit).map(toVersion),
      ),
    versionAtOrBefore: (docId, at) =>
      guarded(path, 'find a version', () => {
        const r = q.atOrBefore.get(docId, at)
        return r === undefined ? undefined : toVersion(r)
      }),
    version: (docId, id) =>
      guarded(path, 'read a version', () => {
        const r = q.version.get(docId, id)
        return r === undefined ? undefined : toVersion(r)
      }),
    stored: (docId, id) =>
      guarded(path, 'read a version', () => {
        const r = q.stored.get(docId, id)
        if (r === undefined) return undefined
        // Read from the change log; a change gone without its copy (never written so) leaves it unreadable.
        if (r.ref !== null)
          return r.refData === null
            ? undefined
            : { state: toV1(bytesOf(r.refData), r.refFormat), base: r.base ?? undefined }
        return { state: toV1(bytesOf(r.state), r.format), base: r.base ?? undefined }
      }),
    basedOn: (docId, base) => guarded(path, 'read a version', () => q.basedOn.all(docId, base).map((r) => r.id)),
    rebase: (docId, id, state, base) =>
      guarded(path, 'rewrite a version', () => {
        writable()
        q.rebase?.run(Y.convertUpdateFormatV1ToV2(state), base ?? null, docId, id)
      }),
    atomically: (fn) => guarded(path, 'change the history', () => db.transaction(fn)()),
    dropVersions: (docId, ids) =>
      guarded(path, 'drop versions', () => {
        writable()
        drop(docId, ids)
      }),
    storedBytes: (docId) =>
      guarded(path, 'measure the history', () => q.storedBytes.get(docId, docId) ?? { versions: 0, changes: 0 }),
    changeSizes: (docId) => guarded(path, 'measure the changes', () => q.changeSizes.all(docId)),
    reclaim: () =>
      guarded(path, 'give freed pages back', () => {
        if (readonly) return
        // A no-op unless the store is incrementally vacuumed (replica/store.ts turns that on at open).
        db.pragma('incremental_vacuum')
      }),
  }
}
