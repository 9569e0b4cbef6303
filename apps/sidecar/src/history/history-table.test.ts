import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as Y from 'yjs'
import { openSidecarStore } from '../phases/store.ts'
import { STORE_FILE } from '../replica/store.ts'

const DOC = 'doc-1'

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-history-table-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A text typed one character at a time here and there (many small items), as v1 updates, and the whole state. */
function typed(n: number): { updates: Uint8Array[]; state: Uint8Array } {
  const doc = new Y.Doc()
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  for (let i = 0; i < n; i++) doc.getText('t').insert((i * 7) % (i + 1), String.fromCharCode(97 + (i % 26)))
  return { updates, state: Y.encodeStateAsUpdate(doc) }
}

describe('the history table’s stored format', () => {
  it('stores versions and merged changes in Yjs v2 (smaller) and gives back v1', () => {
    const dir = tempDir()
    const store = openSidecarStore(dir)
    onTestFinished(() => store.close())
    const { updates, state } = typed(2000)
    const v = store.history.addVersion(DOC, { at: 1, reason: 'quiet', authors: [], chars: 2000, lastChange: 0 }, state)
    expect(v.bytes).toBeLessThan(state.byteLength)
    expect(store.history.stored(DOC, v.id)?.state).toEqual(state)

    store.atomically(() => {
      for (const data of updates)
        store.appendUpdate(DOC, data, store.history.stamp({ at: 1, via: 'page', author: 'me' }))
    })
    const merged = Y.mergeUpdates(updates)
    store.history.settle(DOC, 0, [{ at: 1, via: 'page', author: 'me', data: merged }], Number.MAX_SAFE_INTEGER)
    const [back] = store.history.changesAfter(DOC, 0)
    expect(back?.data).toEqual(merged)
    const db = new Database(join(dir, STORE_FILE), { readonly: true })
    onTestFinished(() => void db.close())
    const row = db.prepare('SELECT length(data) AS bytes, format FROM history_changes').get() as {
      bytes: number
      format: number
    }
    expect(row.format).toBe(2)
    expect(row.bytes).toBeLessThan(merged.byteLength / 2)
    expect(store.history.storedBytes(DOC)).toEqual({ versions: v.bytes, changes: row.bytes })
  })

  it('a store written before the format column keeps its v1 rows readable after the upgrade', () => {
    const dir = tempDir()
    const { state, updates } = typed(50)
    const old = new Database(join(dir, STORE_FILE))
    old.exec(`
CREATE TABLE history_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, at INTEGER NOT NULL, via TEXT NOT NULL, author TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE history_versions (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, at INTEGER NOT NULL, reason TEXT NOT NULL, authors TEXT NOT NULL, chars INTEGER, last_change INTEGER NOT NULL, state BLOB NOT NULL, base INTEGER);`)
    old
      .prepare(
        'INSERT INTO history_versions (doc_id, at, reason, authors, chars, last_change, state) VALUES (?, 1, ?, ?, 50, 1, ?)',
      )
      .run(DOC, 'quiet', 'me', state)
    old
      .prepare('INSERT INTO history_changes (doc_id, at, via, author, data) VALUES (?, 1, ?, ?, ?)')
      .run(DOC, 'page', 'me', updates[0])
    old.close()

    const store = openSidecarStore(dir)
    onTestFinished(() => store.close())
    const [v] = store.history.versions(DOC, undefined, 10)
    expect(store.history.stored(DOC, v?.id ?? 0)?.state).toEqual(state)
    expect(store.history.changesAfter(DOC, 0)[0]?.data).toEqual(updates[0])
  })

  it('a store made before incremental vacuum is rewritten once to take it, its rows intact', () => {
    const dir = tempDir()
    const { state } = typed(50)
    const old = new Database(join(dir, STORE_FILE))
    expect(old.pragma('auto_vacuum', { simple: true })).toBe(0)
    old.exec(
      'CREATE TABLE history_versions (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, at INTEGER NOT NULL, reason TEXT NOT NULL, authors TEXT NOT NULL, chars INTEGER, last_change INTEGER NOT NULL, state BLOB NOT NULL, base INTEGER);',
    )
    old
      .prepare(
        'INSERT INTO history_versions (doc_id, at, reason, authors, chars, last_change, state) VALUES (?, 1, ?, ?, 50, 1, ?)',
      )
      .run(DOC, 'quiet', 'me', state)
    old.close()

    const store = openSidecarStore(dir)
    const [v] = store.history.versions(DOC, undefined, 10)
    expect(store.history.stored(DOC, v?.id ?? 0)?.state).toEqual(state)
    store.close()
    const after = new Database(join(dir, STORE_FILE), { readonly: true })
    onTestFinished(() => {
      after.close()
    })
    expect(after.pragma('auto_vacuum', { simple: true })).toBe(2)
  })
})
