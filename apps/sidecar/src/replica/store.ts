/**
 * The replica's embedded on-disk store: one SQLite database (better-sqlite3) per data folder,
 * holding every mapped document's update log and the message ids the sidecar has sent.
 *
 * WAL mode with `synchronous=FULL`: a committed write survives a process kill *and* a power loss.
 * Incrementally vacuumed (`auto_vacuum=INCREMENTAL`, set once at open): dropped history gives its
 * pages back to the file system.
 * NORMAL would survive a kill but could lose the last commits on power loss, and the sidecar
 * acknowledges browsers (which then drop their own copy) on the strength of these writes.
 * Every failure is a {@link StoreError} naming the path; callers stop the sidecar on it.
 * @see docs/sidecar.md §8
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { StoreError } from '../errors.ts'
import { lockDataFolder } from './folder-lock.ts'
import { guarded } from './guarded.ts'
import { createDocumentTable, DOCUMENTS_SCHEMA, type DocumentTable } from './doc-table.ts'
import { createFixedChangeTable, FIXED_CHANGES_SCHEMA, type FixedChangeTable } from './fixed-change-table.ts'
import { createOutboxTable, type OutboxTable } from './outbox.ts'
import { createReceivedIdTable, RECEIVED_IDS_SCHEMA, type ReceivedIdTable } from './received-ids.ts'
import { createSentIdTable, type SentIdTable } from './sent-ids.ts'

/** File name of the store inside the data folder. */
export const STORE_FILE = 'replica.sqlite3'
/** Pages of WAL between automatic checkpoints (4 KiB pages: 1 MiB), and the size a WAL is cut back to. */
const WAL_PAGES = 256
const WAL_LIMIT_BYTES = 1024 * 1024
const SCHEMA_VERSION = 4

/** History's stamp on an update row, as stored: time (ms) and the codes history-table.ts gives origin and author. */
export interface UpdateStamp {
  readonly at: number
  readonly via: number
  readonly author: number
}

/**
 * A feature's own tables in the store: what it creates and migrates on a writable open, run once
 * the store's own tables exist. The feature reads and writes them through {@link ReplicaStore.db}.
 */
export interface FeatureTables {
  create(db: Database.Database): void
}

export interface ReplicaStore {
  /** The database file. */
  readonly path: string
  /** The document's update log, oldest first. */
  loadUpdates(docId: string): Uint8Array[]
  /**
   * Appends one update (committed and synced when this returns), with history's stamp (who and
   * when) on the same row when given: history costs no second row per edit.
   */
  appendUpdate(docId: string, update: Uint8Array, stamp?: UpdateStamp): void
  /**
   * Replaces the document's log by one state update, atomically (compaction). Stamped rows are
   * history's until it settles them (history-table.ts): they are kept beside the state.
   */
  replaceUpdates(docId: string, state: Uint8Array): void
  /** Rows and bytes of the document's log. */
  logSize(docId: string): { rows: number; bytes: number }
  readonly sentIds: SentIdTable
  /** Documents created or accepted at run time (doc-table.ts). */
  readonly documents: DocumentTable
  /** Envelopes from this machine's browsers that Signal has not accepted yet (durable send queue). */
  readonly outbox: OutboxTable
  /** When each fixed document last changed (fixed-change-table.ts). */
  readonly fixedChanges: FixedChangeTable
  /** Message ids delivered from the group, per source, kept across restarts (received-ids.ts). */
  readonly receivedIds: ReceivedIdTable
  /** The database, for the features that keep tables of their own (phases/store.ts names them). */
  readonly db: Database.Database
  /** False for a read-only open. */
  readonly writable: boolean
  /** Runs `fn` in one transaction: what it writes is committed (and synced) once, together. */
  atomically<T>(fn: () => T): T
  /** Size of the database file and its WAL, in bytes. */
  fileBytes(): number
  /** Bytes the rows of every table and index hold (SQLite's dbstat payload), without free space. */
  payloadBytes(): number
  close(): void
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS updates (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, data BLOB NOT NULL, at INTEGER, via INTEGER, author INTEGER);
CREATE INDEX IF NOT EXISTS updates_doc ON updates (doc_id, id);
CREATE TABLE IF NOT EXISTS sent_ids (doc_id TEXT NOT NULL, message_id TEXT NOT NULL, at INTEGER NOT NULL, sender_id TEXT NOT NULL DEFAULT '', PRIMARY KEY (doc_id, message_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sent_ids_at ON sent_ids (at);
CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, message_id TEXT NOT NULL, sender_id TEXT NOT NULL, frame BLOB NOT NULL, at INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS outbox_message ON outbox (doc_id, message_id);
${DOCUMENTS_SCHEMA}${FIXED_CHANGES_SCHEMA}${RECEIVED_IDS_SCHEMA}`
// Schema 1 had no sender per sent id: its rows keep '' (the sender is unknown; a replay is acknowledged).
const MIGRATE_1_TO_2 = "ALTER TABLE sent_ids ADD COLUMN sender_id TEXT NOT NULL DEFAULT ''"
/** Schema 4 stamps update rows (history's change log): a row from before carries none. */
function migrateUpdateStamps(db: Database.Database): void {
  const columns = (db.pragma('table_info(updates)') as { name: string }[]).map((c) => c.name)
  for (const column of ['at', 'via', 'author'])
    if (!columns.includes(column)) db.exec(`ALTER TABLE updates ADD COLUMN ${column} INTEGER`)
}

/**
 * Opens (creating when writable) the store in `dir`. The folder is created with mode 0700.
 * A writable open locks the folder until `close()` (one sidecar per data folder, folder-lock.ts).
 * A read-only open never creates or locks anything and needs an existing store. `features` create
 * and migrate their own tables on a writable open (phases/store.ts names them).
 * @throws StoreError when the folder is locked by another sidecar, or the database cannot be
 * created, opened, checked or written.
 */
export function openReplicaStore(
  dir: string,
  options: { readonly?: boolean; features?: readonly FeatureTables[] } = {},
): ReplicaStore {
  const readonly = options.readonly === true
  const path = join(dir, STORE_FILE)
  if (!readonly) guarded(dir, 'create the data folder', () => mkdirSync(dir, { recursive: true, mode: 0o700 }))
  const lock = readonly ? undefined : lockDataFolder(dir)
  let db: Database.Database
  try {
    db = guarded(
      path,
      readonly ? 'open the store read-only' : 'open or create the store',
      () => new Database(path, { readonly, fileMustExist: readonly, timeout: 5000 }),
    )
  } catch (error) {
    lock?.release()
    throw error
  }
  try {
    guarded(path, 'check the store', () => {
      if (!readonly) {
        // Pages freed by dropped history go back to the file system (history-table.ts `reclaim`);
        // a store made before that is rewritten once (VACUUM) to take the setting.
        if (db.pragma('auto_vacuum', { simple: true }) !== 2) {
          db.pragma('auto_vacuum = INCREMENTAL')
          db.exec('VACUUM')
        }
        db.pragma('journal_mode = WAL')
        db.pragma('synchronous = FULL')
        // The WAL is checkpointed every 1 MiB of pages and cut back to 1 MiB after (SQLite's
        // defaults let it stay at 4 MiB and more whatever the rows hold).
        db.pragma(`wal_autocheckpoint = ${WAL_PAGES}`)
        db.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`)
        const hasSentIds =
          db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sent_ids'").get() !== undefined
        const columns = hasSentIds ? (db.pragma('table_info(sent_ids)') as { name: string }[]).map((c) => c.name) : []
        if (hasSentIds && !columns.includes('sender_id')) db.exec(MIGRATE_1_TO_2)
        db.exec(SCHEMA)
        migrateUpdateStamps(db)
        for (const feature of options.features ?? []) feature.create(db)
      }
      const check = db.pragma('quick_check', { simple: true })
      if (check !== 'ok')
        throw new StoreError(path, `the store is corrupt (quick_check: ${String(check).slice(0, 200)})`)
      const row = db.prepare('SELECT value FROM meta WHERE key = ?').get('schema_version') as
        | { value: string }
        | undefined
      const version = row === undefined ? undefined : Number(row.value)
      if (version !== undefined && version > SCHEMA_VERSION)
        throw new StoreError(path, `written by a newer e2e-col (schema ${version} > ${SCHEMA_VERSION})`)
      // A write at open proves the store is writable now, not at the first browser edit.
      if (!readonly)
        db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(
          'schema_version',
          String(SCHEMA_VERSION),
        )
    })
  } catch (error) {
    db.close()
    lock?.release()
    throw error
  }

  const select = db.prepare<[string], { data: Buffer }>('SELECT data FROM updates WHERE doc_id = ? ORDER BY id')
  const size = db.prepare<[string], { rows: number; bytes: number | null }>(
    'SELECT count(*) AS rows, sum(length(data)) AS bytes FROM updates WHERE doc_id = ?',
  )
  const insert = readonly
    ? undefined
    : db.prepare('INSERT INTO updates (doc_id, data, at, via, author) VALUES (?, ?, ?, ?, ?)')
  const clear = readonly ? undefined : db.prepare('DELETE FROM updates WHERE doc_id = ? AND at IS NULL')
  const replace = db.transaction((docId: string, state: Uint8Array) => {
    clear?.run(docId)
    insert?.run(docId, state, null, null, null)
  })
  const writable = () => {
    if (readonly) throw new StoreError(path, 'opened read-only')
  }

  return {
    path,
    loadUpdates: (docId) =>
      guarded(path, 'read the update log', () =>
        select.all(docId).map((r) => new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength)),
      ),
    appendUpdate: (docId, update, stamp) =>
      guarded(path, 'append an update', () => {
        writable()
        insert?.run(docId, update, stamp?.at ?? null, stamp?.via ?? null, stamp?.author ?? null)
      }),
    replaceUpdates: (docId, state) =>
      guarded(path, 'compact the update log', () => {
        writable()
        replace(docId, state)
      }),
    logSize: (docId) =>
      guarded(path, 'measure the update log', () => {
        const r = size.get(docId)
        return { rows: r?.rows ?? 0, bytes: r?.bytes ?? 0 }
      }),
    sentIds: createSentIdTable(db, path, readonly),
    documents: createDocumentTable(db, path, readonly),
    outbox: createOutboxTable(db, path, readonly),
    fixedChanges: createFixedChangeTable(db, path, readonly),
    receivedIds: createReceivedIdTable(db, path, readonly),
    db,
    writable: !readonly,
    atomically: (fn) => guarded(path, 'write a change', () => db.transaction(fn)()),
    fileBytes: () =>
      guarded(path, 'measure the file', () => {
        const pages = db.pragma('page_count', { simple: true }) as number
        const pageSize = db.pragma('page_size', { simple: true }) as number
        return pages * pageSize
      }),
    payloadBytes: () =>
      guarded(path, 'measure the rows', () => {
        const r = db.prepare<[], { bytes: number | null }>('SELECT sum(payload) AS bytes FROM dbstat').get()
        return r?.bytes ?? 0
      }),
    close: () => {
      try {
        db.close()
      } finally {
        lock?.release()
      }
    },
  }
}
