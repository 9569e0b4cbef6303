/**
 * The store's history of every document: each change with its time and where it came from (this
 * person's page, the sidecar itself, or which member's Signal account sent it), and the versions
 * (the document's state at a moment, as a Yjs update, with the people whose changes it
 * holds). Changes of one spell are merged per author when the spell becomes a version, so the log
 * stays short; versions are thinned by retention.ts.
 * @see docs/sidecar.md "History"
 */
import type { Database } from 'better-sqlite3'
import * as Y from 'yjs'
import { StoreError } from '../errors.ts'
import { guarded } from '../replica/guarded.ts'

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

export interface HistoryTable {
  /** Appends a change; its id. */
  addChange(docId: string, change: Omit<StoredChange, 'id'>): number
  /** Changes with id > `afterId`, oldest first. */
  changesAfter(docId: string, afterId: number): StoredChange[]
  /** Replaces the changes with id in (afterId, uptoId] by `merged`, atomically. */
  replaceChanges(docId: string, afterId: number, uptoId: number, merged: readonly Omit<StoredChange, 'id'>[]): void
  /** Deletes the changes older than `at`; how many. */
  dropChangesBefore(docId: string, at: number): number
  /** The oldest change kept (ms), undefined when none. */
  oldestChangeAt(docId: string): number | undefined
  /**
   * Adds a version: `state` is the whole state, or (with `base`) the difference from version
   * `base`, which the version's state is merged from (doc-history.ts).
   */
  addVersion(docId: string, v: Omit<VersionRow, 'id' | 'bytes'>, state: Uint8Array, base?: number): VersionRow
  /** Versions newest first, older than `before` (ms) when given, at most `limit`. */
  versions(docId: string, before: number | undefined, limit: number): VersionRow[]
  /** The newest version at or before `at`, or the oldest when none is. */
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
}

export const HISTORY_SCHEMA = `
CREATE TABLE IF NOT EXISTS history_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, at INTEGER NOT NULL, via TEXT NOT NULL, author TEXT NOT NULL, data BLOB NOT NULL, format INTEGER NOT NULL DEFAULT 1);
CREATE INDEX IF NOT EXISTS history_changes_doc ON history_changes (doc_id, id);
CREATE TABLE IF NOT EXISTS history_versions (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, at INTEGER NOT NULL, reason TEXT NOT NULL, authors TEXT NOT NULL, chars INTEGER, last_change INTEGER NOT NULL, state BLOB NOT NULL, base INTEGER, format INTEGER NOT NULL DEFAULT 1);
CREATE INDEX IF NOT EXISTS history_versions_doc ON history_versions (doc_id, at);
`

/**
 * Adds the `format` column to a store whose history tables were made before it (every row there
 * is a v1 update). Run once the schema exists, on a writable store.
 */
export function migrateHistoryFormat(db: Database): void {
  for (const table of ['history_changes', 'history_versions']) {
    const columns = (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name)
    if (!columns.includes('format')) db.exec(`ALTER TABLE ${table} ADD COLUMN format INTEGER NOT NULL DEFAULT 1`)
  }
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

const VERSION_COLUMNS = 'id, at, reason, authors, chars, last_change, length(state) AS bytes'

/** The history of a store written before history existed, opened read-only: empty; writing throws. */
function noHistory(writable: () => void): HistoryTable {
  return {
    addChange: () => (writable(), 0),
    changesAfter: () => [],
    replaceChanges: writable,
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
  }
}

export function createHistoryTable(db: Database, path: string, readonly: boolean): HistoryTable {
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_versions'").get() !== undefined
  const format = formatColumn(db, exists)
  const writable = () => {
    if (readonly || !exists) throw new StoreError(path, 'opened read-only')
  }
  // A store written before history existed, opened read-only: it has none.
  if (!exists) return noHistory(writable)
  const q = {
    addChange: db.prepare(
      'INSERT INTO history_changes (doc_id, at, via, author, data, format) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    changesAfter: db.prepare<[string, number], ChangeRecord>(
      `SELECT id, at, via, author, data, ${format} FROM history_changes WHERE doc_id = ? AND id > ? ORDER BY id`,
    ),
    deleteRange: db.prepare('DELETE FROM history_changes WHERE doc_id = ? AND id > ? AND id <= ?'),
    dropBefore: db.prepare('DELETE FROM history_changes WHERE doc_id = ? AND at < ?'),
    oldest: db.prepare<[string], { at: number | null }>('SELECT min(at) AS at FROM history_changes WHERE doc_id = ?'),
    addVersion: db.prepare(
      'INSERT INTO history_versions (doc_id, at, reason, authors, chars, last_change, state, base, format) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 2)',
    ),
    versions: db.prepare<[string, number, number], VersionRecord>(
      `SELECT ${VERSION_COLUMNS} FROM history_versions WHERE doc_id = ? AND at < ? ORDER BY at DESC, id DESC LIMIT ?`,
    ),
    atOrBefore: db.prepare<[string, number], VersionRecord>(
      `SELECT ${VERSION_COLUMNS} FROM history_versions WHERE doc_id = ? AND at <= ? ORDER BY at DESC, id DESC LIMIT 1`,
    ),
    oldestVersion: db.prepare<[string], VersionRecord>(
      `SELECT ${VERSION_COLUMNS} FROM history_versions WHERE doc_id = ? ORDER BY at, id LIMIT 1`,
    ),
    version: db.prepare<[string, number], VersionRecord>(
      `SELECT ${VERSION_COLUMNS} FROM history_versions WHERE doc_id = ? AND id = ?`,
    ),
    stored: db.prepare<[string, number], { state: Buffer; base: number | null; format: number }>(
      `SELECT state, base, ${format} FROM history_versions WHERE doc_id = ? AND id = ?`,
    ),
    basedOn: db.prepare<[string, number], { id: number }>(
      'SELECT id FROM history_versions WHERE doc_id = ? AND base = ?',
    ),
    rebase: db.prepare('UPDATE history_versions SET state = ?, base = ?, format = 2 WHERE doc_id = ? AND id = ?'),
    dropVersion: db.prepare('DELETE FROM history_versions WHERE doc_id = ? AND id = ?'),
    storedBytes: db.prepare<[string, string], { versions: number; changes: number }>(
      'SELECT (SELECT coalesce(sum(length(state)), 0) FROM history_versions WHERE doc_id = ?) AS versions, (SELECT coalesce(sum(length(data)), 0) FROM history_changes WHERE doc_id = ?) AS changes',
    ),
  }
  const replace = db.transaction(
    (docId: string, afterId: number, uptoId: number, merged: readonly Omit<StoredChange, 'id'>[]) => {
      q.deleteRange.run(docId, afterId, uptoId)
      for (const c of merged) q.addChange.run(docId, c.at, c.via, c.author, Y.convertUpdateFormatV1ToV2(c.data), V2)
    },
  )
  const drop = db.transaction((docId: string, ids: readonly number[]) => {
    for (const id of ids) q.dropVersion.run(docId, id)
  })
  return {
    addChange: (docId, c) =>
      guarded(path, 'record a change', () => {
        writable()
        return Number(q.addChange.run(docId, c.at, c.via, c.author, c.data, 1).lastInsertRowid)
      }),
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
    replaceChanges: (docId, afterId, uptoId, merged) =>
      guarded(path, 'merge the changes', () => {
        writable()
        replace(docId, afterId, uptoId, merged)
      }),
    dropChangesBefore: (docId, at) =>
      guarded(path, 'drop old changes', () => {
        writable()
        return q.dropBefore.run(docId, at).changes
      }),
    oldestChangeAt: (docId) => guarded(path, 'read the changes', () => q.oldest.get(docId)?.at ?? undefined),
    addVersion: (docId, v, state, base) =>
      guarded(path, 'record a version', () => {
        writable()
        const stored = Y.convertUpdateFormatV1ToV2(state)
        const id = Number(
          q.addVersion.run(
            docId,
            v.at,
            v.reason,
            v.authors.join('\n'),
            v.chars ?? null,
            v.lastChange,
            stored,
            base ?? null,
          ).lastInsertRowid,
        )
        return { ...v, id, bytes: stored.byteLength }
      }),
    versions: (docId, before, limit) =>
      guarded(path, 'list versions', () =>
        q.versions.all(docId, before ?? Number.MAX_SAFE_INTEGER, limit).map(toVersion),
      ),
    versionAtOrBefore: (docId, at) =>
      guarded(path, 'find a version', () => {
        const r = q.atOrBefore.get(docId, at) ?? q.oldestVersion.get(docId)
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
        return r === undefined ? undefined : { state: toV1(bytesOf(r.state), r.format), base: r.base ?? undefined }
      }),
    basedOn: (docId, base) => guarded(path, 'read a version', () => q.basedOn.all(docId, base).map((r) => r.id)),
    rebase: (docId, id, state, base) =>
      guarded(path, 'rewrite a version', () => {
        writable()
        q.rebase.run(Y.convertUpdateFormatV1ToV2(state), base ?? null, docId, id)
      }),
    atomically: (fn) => guarded(path, 'change the history', () => db.transaction(fn)()),
    dropVersions: (docId, ids) =>
      guarded(path, 'drop versions', () => {
        writable()
        drop(docId, ids)
      }),
    storedBytes: (docId) =>
      guarded(path, 'measure the history', () => q.storedBytes.get(docId, docId) ?? { versions: 0, changes: 0 }),
  }
}
