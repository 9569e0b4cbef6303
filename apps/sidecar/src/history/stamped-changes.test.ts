import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { manualTimers } from '@e2e-col/sync/testing'
import Database from 'better-sqlite3'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as Y from 'yjs'
import { createLogger } from '../ops/logger.ts'
import { loadReplica } from '../replica/replica.ts'
import { openSidecarStore, type SidecarStore } from '../phases/store.ts'
import { STORE_FILE } from '../replica/store.ts'
import { createDocHistory, type HistoryPolicy } from './doc-history.ts'

const SELF = '+33600000001'
const BOB = '+33600000002'
const DOC = 'doc-1'
const START = Date.parse('2026-12-02T08:00:00Z')
const DAY = 86_400_000
const POLICY: HistoryPolicy = {
  quietMs: 3000,
  maxSpellMs: 60_000,
  absenceMs: 600_000,
  changeDays: 7,
  retention: { allDays: 30, dailyDays: 90, maxBytes: 10_000_000 },
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-stamped-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A store, replica and history over `dir`; `close` stops them without recording what is pending (a crash). */
function open(dir: string, timers = manualTimers(), compaction?: { maxRows: number }) {
  if (timers.now() === 0) timers.jump(START)
  const store = openSidecarStore(dir)
  const replica = loadReplica(
    store,
    DOC,
    compaction === undefined ? undefined : { ...compaction, growthFactor: 1000, slackBytes: 1 << 30 },
  )
  const history = createDocHistory(DOC, replica, POLICY, {
    table: store.history,
    timers,
    self: SELF,
    storing: (fn) => fn(),
    logger: createLogger('silent'),
  })
  replica.observe(history)
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    store.close()
  }
  onTestFinished(close)
  return { store, replica, history, timers, close }
}

/** Appends `text` by `writer`'s own client, as a page or a member sends it. */
function typer(replica: { apply(u: Uint8Array, o: { via: 'page' | 'member'; author?: string }): boolean }) {
  const writers = new Map<string, Y.Doc>()
  return (text: string, origin: { via: 'page' } | { via: 'member'; author: string } = { via: 'page' }) => {
    const key = origin.via === 'page' ? 'page' : origin.author
    const doc = writers.get(key) ?? new Y.Doc()
    writers.set(key, doc)
    const before = Y.encodeStateVector(doc)
    doc.getText('t').insert(doc.getText('t').length, text)
    expect(replica.apply(Y.encodeStateAsUpdate(doc, before), origin)).toBe(true)
  }
}

function rows(dir: string, sql: string): unknown[] {
  const db = new Database(join(dir, STORE_FILE), { readonly: true })
  try {
    return db.prepare(sql).all()
  } finally {
    db.close()
  }
}

const textOf = (state: Uint8Array | undefined): string => {
  const doc = new Y.Doc()
  if (state !== undefined) Y.applyUpdate(doc, state)
  return doc.getText('t').toString()
}

/** Two versions: the first whole, the second a one-author spell after it. */
function twoVersions(dir: string) {
  const opened = open(dir)
  const type = typer(opened.replica)
  type('Hello')
  opened.timers.advance(POLICY.quietMs)
  type(', world')
  opened.timers.advance(POLICY.quietMs)
  const [second, first] = opened.history.list(undefined, 10)
  return { ...opened, first, second }
}

/** A store as schema 3 left it: no stamp columns, no people table, no change references. */
function schema3(dir: string): Uint8Array {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, 'kept')
  const state = Y.encodeStateAsUpdate(doc)
  openSidecarStore(dir).close()
  const db = new Database(join(dir, STORE_FILE))
  db.exec(`
ALTER TABLE updates DROP COLUMN at; ALTER TABLE updates DROP COLUMN via; ALTER TABLE updates DROP COLUMN author;
ALTER TABLE history_versions DROP COLUMN change_ref; DROP TABLE history_people;
UPDATE meta SET value = '3' WHERE key = 'schema_version';`)
  db.prepare('INSERT INTO updates (doc_id, data) VALUES (?, ?)').run(DOC, state)
  db.prepare(
    "INSERT INTO history_versions (doc_id, at, reason, authors, chars, last_change, state, format) VALUES (?, 1, 'quiet', ?, 4, 0, ?, 1)",
  ).run(DOC, SELF, state)
  db.close()
  return state
}

describe('changes kept on the update log’s own rows while their spell goes on', () => {
  it('an edit writes one row, stamped with time, origin and author; no change row until the version', () => {
    const dir = tempDir()
    const { store, replica, timers } = open(dir)
    const type = typer(replica)
    // Bob heard once (his first change is a catch-up, a version of its own), then a spell of both.
    type('Bob: ', { via: 'member', author: BOB })
    timers.advance(POLICY.quietMs)
    const settled = store.history.changesAfter(DOC, 0).length
    type('a')
    timers.advance(500)
    type('b', { via: 'member', author: BOB })
    expect(store.history.changesAfter(DOC, 0)).toHaveLength(settled)
    expect(store.history.pending(DOC).map(({ at, via, author }) => ({ at, via, author }))).toEqual([
      { at: START + POLICY.quietMs, via: 'page', author: SELF },
      { at: START + POLICY.quietMs + 500, via: 'member', author: BOB },
    ])
    timers.advance(POLICY.quietMs)
    // Settled: merged per author into the change log, the stamps cleared.
    expect(store.history.pending(DOC)).toEqual([])
    expect(store.history.changesAfter(DOC, 0).map((c) => [c.via, c.author])).toEqual([
      ['member', BOB],
      ['page', SELF],
      ['member', BOB],
    ])
    expect(rows(dir, 'SELECT count(at) AS stamped FROM updates')).toEqual([{ stamped: 0 }])
  })

  it('compaction keeps the stamped rows of a spell going on, and drops them once settled', () => {
    const dir = tempDir()
    const { store, replica, timers } = open(dir, undefined, { maxRows: 4 })
    const type = typer(replica)
    for (const ch of 'abcdef') type(ch)
    // Compacted twice over (4 rows) while all six changes were still pending: none is lost.
    expect(replica.compactions).toBeGreaterThan(0)
    expect(textOf(Y.mergeUpdates(store.history.pending(DOC).map((c) => c.data)))).toBe('abcdef')
    expect(store.history.pending(DOC)).toHaveLength(6)
    timers.advance(POLICY.quietMs)
    for (const ch of 'ghij') type(ch)
    expect(store.history.pending(DOC)).toHaveLength(4)
    // The next compaction took the settled rows: only the state and the new spell's rows are left.
    expect(store.logSize(DOC).rows).toBeLessThan(4 + 6)
    expect(textOf(Y.mergeUpdates(store.loadUpdates(DOC)))).toBe('abcdefghij')
  })

  it('a crash mid-spell keeps its changes with their authors: the next run settles them and reverts by author', () => {
    const dir = tempDir()
    const timers = manualTimers()
    const first = open(dir, timers)
    const type = typer(first.replica)
    type('Alice. ')
    type('Bob! ', { via: 'member', author: BOB })
    timers.advance(POLICY.quietMs)
    const beforeBob = timers.now()
    type('Bob was here. ', { via: 'member', author: BOB })
    type('More Alice.')
    first.close()

    // A new process: the first one's timers died with it.
    const later = manualTimers()
    later.jump(timers.now())
    const second = open(dir, later)
    expect(second.store.history.pending(DOC).map((c) => c.author)).toEqual([BOB, SELF])
    const since = second.history.since(beforeBob)
    expect(since?.later.map((c) => c.author)).toEqual([BOB, SELF])
    // Settled as a spell of this run once quiet, with both authors.
    later.advance(POLICY.quietMs)
    expect(second.store.history.pending(DOC)).toEqual([])
    expect([...(second.history.list(undefined, 1)[0]?.authors ?? [])].sort()).toEqual([SELF, BOB].sort())
    expect(
      second.store.history
        .changesAfter(DOC, 0)
        .slice(-2)
        .map((c) => c.author),
    ).toEqual([BOB, SELF])
  })
})

describe('a version whose difference is its spell’s one change', () => {
  it('stores no bytes of its own and reads as the document stood', () => {
    const dir = tempDir()
    const { store, history, first, second } = twoVersions(dir)
    expect(rows(dir, 'SELECT id, length(state) AS bytes, change_ref IS NOT NULL AS ref FROM history_versions')).toEqual(
      [
        { id: first?.id, bytes: expect.any(Number), ref: 0 },
        { id: second?.id, bytes: 0, ref: 1 },
      ],
    )
    expect(textOf(history.state(second?.id ?? 0))).toBe('Hello, world')
    expect(textOf(history.state(first?.id ?? 0))).toBe('Hello')
    // It weighs its change's bytes (the retention's byte bound counts them); the store counts them once.
    const [change] = rows(
      dir,
      `SELECT length(c.data) AS bytes FROM history_versions v JOIN history_changes c ON c.id = v.change_ref WHERE v.id = ${second?.id}`,
    ) as { bytes: number }[]
    expect(change?.bytes).toBeGreaterThan(0)
    expect(second?.bytes).toBe(change?.bytes)
    expect(store.history.storedBytes(DOC).versions).toBe(first?.bytes)
  })

  it('takes a copy of the change before the change window drops it, and still reads the same', () => {
    const dir = tempDir()
    const { store, history, timers, second } = twoVersions(dir)
    const before = history.state(second?.id ?? 0)
    timers.advance(8 * DAY)
    expect(store.history.dropChangesBefore(DOC, timers.now() - 7 * DAY)).toBeGreaterThan(0)
    expect(store.history.changesAfter(DOC, 0)).toEqual([])
    expect(
      rows(dir, `SELECT length(state) > 0 AS own, change_ref FROM history_versions WHERE id = ${second?.id}`),
    ).toEqual([{ own: 1, change_ref: null }])
    expect(history.state(second?.id ?? 0)).toEqual(before)
  })

  it('a spell of two authors keeps its own difference (each author’s change is kept apart)', () => {
    const dir = tempDir()
    const { replica, timers, history } = open(dir)
    const type = typer(replica)
    type('Hello')
    type(' Bob', { via: 'member', author: BOB })
    timers.advance(POLICY.quietMs)
    type(' Alice')
    type(' Bob', { via: 'member', author: BOB })
    timers.advance(POLICY.quietMs)
    const [v] = history.list(undefined, 1)
    expect(rows(dir, `SELECT length(state) > 0 AS own, change_ref FROM history_versions WHERE id = ${v?.id}`)).toEqual([
      { own: 1, change_ref: null },
    ])
    // Each writer types into its own copy, so the order of the words is Yjs's, by client id.
    expect(textOf(history.state(v?.id ?? 0))).toBe(replica.doc.getText('t').toString())
    expect(textOf(history.state(v?.id ?? 0))).toHaveLength('Hello Bob Alice Bob'.length)
  })
})

describe('a store from before stamped rows (schema 3)', () => {
  it('read-only: its versions read and nothing is pending', () => {
    const dir = tempDir()
    const state = schema3(dir)
    const store: SidecarStore = openSidecarStore(dir, { readonly: true })
    onTestFinished(() => store.close())
    expect(store.history.pending(DOC)).toEqual([])
    const [v] = store.history.versions(DOC, undefined, 10)
    expect(store.history.stored(DOC, v?.id ?? 0)?.state).toEqual(state)
    expect(v?.bytes).toBeGreaterThan(0)
  })

  it('opened by this sidecar: upgraded to stamped rows, the old version kept, new edits stamped', () => {
    const dir = tempDir()
    schema3(dir)
    const { store, replica, history } = open(dir)
    typer(replica)(' and more')
    expect(store.history.pending(DOC).map((c) => c.author)).toEqual([SELF])
    expect(history.list(undefined, 10).map((v) => textOf(history.state(v.id)))).toEqual(['kept'])
    expect(rows(dir, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([{ value: '4' }])
  })
})
