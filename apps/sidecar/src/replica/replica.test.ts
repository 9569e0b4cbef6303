import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as Y from 'yjs'
import { StoreError } from '../errors.ts'
import { DEFAULT_COMPACTION } from './compaction.ts'
import { loadReplica } from './replica.ts'
import { openReplicaStore, STORE_FILE, type ReplicaStore } from './store.ts'

const DOC = '0190a6c8-1111-4222-8333-444455556666'

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-replica-unit-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function open(dir: string): ReplicaStore {
  const store = openReplicaStore(dir)
  onTestFinished(() => store.close())
  return store
}

/** A seeded editing session: `n` small updates (inserts and deletes) from one client. */
function editingSession(n: number, seed: number): { updates: Uint8Array[]; doc: Y.Doc } {
  const doc = new Y.Doc()
  doc.clientID = seed
  const text = doc.getText('t')
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  let x = seed
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648
  for (let i = 0; i < n; i++) {
    if (text.length > 20 && rnd() < 0.25) text.delete(Math.floor(rnd() * (text.length - 5)), 1 + Math.floor(rnd() * 4))
    else text.insert(Math.floor(rnd() * (text.length + 1)), 'abcdefghij'.slice(0, 1 + Math.floor(rnd() * 9)))
  }
  return { updates, doc }
}

describe('the document replica and its store', () => {
  it('keeps every applied update across a reopen, and refuses a payload that is not a Yjs update', () => {
    const dir = tempDir()
    const first = openReplicaStore(dir)
    const replica = loadReplica(first, DOC)
    const { updates, doc } = editingSession(50, 7)
    for (const u of updates) expect(replica.apply(u)).toBe(true)
    expect(replica.apply(new Uint8Array([1, 2, 3, 250, 251]))).toBe(false)
    first.close()
    const again = loadReplica(open(dir), DOC)
    expect(again.doc.getText('t').toString()).toBe(doc.getText('t').toString())
  })

  it('once closed (it left memory), applies nothing and writes nothing behind the replica loaded after it', () => {
    const store = open(tempDir())
    const old = loadReplica(store, DOC)
    const { updates } = editingSession(4, 3)
    expect(old.apply(updates[0] ?? new Uint8Array())).toBe(true)
    old.close()
    const fresh = loadReplica(store, DOC)
    expect(old.apply(updates[1] ?? new Uint8Array())).toBe(false)
    expect(store.loadUpdates(DOC)).toHaveLength(1)
    expect(fresh.apply(updates[1] ?? new Uint8Array())).toBe(true)
    expect(store.loadUpdates(DOC)).toHaveLength(2)
  })

  it('answers a state vector with exactly what it lacks', () => {
    const replica = loadReplica(open(tempDir()), DOC)
    const { updates, doc } = editingSession(20, 11)
    for (const u of updates) replica.apply(u)
    const peer = new Y.Doc()
    Y.applyUpdate(peer, updates[0] ?? new Uint8Array())
    expect(replica.lacksFrom(Y.encodeStateVector(peer))).toBe(false)
    Y.applyUpdate(peer, replica.diff(Y.encodeStateVector(peer)))
    expect(peer.getText('t').toString()).toBe(doc.getText('t').toString())
    const ahead = new Y.Doc()
    ahead.getText('t').insert(0, 'only here')
    expect(replica.lacksFrom(Y.encodeStateVector(ahead))).toBe(true)
  })

  it('compacts a few thousand replayed updates to near the encoded state size', () => {
    const store = open(tempDir())
    const replica = loadReplica(store, DOC)
    const { updates, doc } = editingSession(3000, 3)
    const raw = updates.reduce((n, u) => n + u.byteLength, 0)
    for (const u of updates) replica.apply(u)
    const state = Y.encodeStateAsUpdate(doc).byteLength
    const log = store.logSize(DOC)
    // Measured figures, reported in docs/sidecar.md §8.
    console.info(
      `compaction: ${updates.length} updates, ${raw} raw bytes -> stored ${log.bytes} bytes in ${log.rows} rows; encoded state ${state} bytes; ${replica.compactions} compactions; file ${store.fileBytes()} bytes`,
    )
    expect(replica.compactions).toBeGreaterThan(0)
    expect(log.rows).toBeLessThan(DEFAULT_COMPACTION.maxRows)
    expect(log.bytes).toBeLessThanOrEqual(DEFAULT_COMPACTION.growthFactor * state + DEFAULT_COMPACTION.slackBytes)
    expect(loadReplica(store, DOC).doc.getText('t').toString()).toBe(doc.getText('t').toString())
  })

  it('remembers sent ids durably, forgets failed ones, and prunes by age', () => {
    const dir = tempDir()
    const store = openReplicaStore(dir)
    store.sentIds.remember(DOC, 'sender', ['a1', 'a2', 'a3'], 1000)
    store.sentIds.forget(DOC, ['a2'])
    store.sentIds.remember(DOC, 'sender', ['b1'], 5000)
    store.close()
    const again = open(dir)
    expect([again.sentIds.has(DOC, 'a1'), again.sentIds.has(DOC, 'a2'), again.sentIds.count(DOC)]).toEqual([
      true,
      false,
      3,
    ])
    expect(again.sentIds.prune(2000, 1000)).toBe(2)
    expect(again.sentIds.count(DOC)).toBe(1)
  })

  it('keeps at most the newest sent ids beyond the age bound, never one whose envelope still waits in the outbox', () => {
    const store = open(tempDir())
    // The oldest id belongs to an envelope a page handed over that Signal has not taken yet.
    store.outbox.accept(DOC, 'page', 'waiting', new Uint8Array([1]), 100)
    for (let i = 0; i < 10; i++) store.sentIds.remember(DOC, 'sidecar', [`m${i}`], 1000 + i)
    expect(store.sentIds.count(DOC)).toBe(11)
    // Nothing is old enough by age; beyond 4, the oldest go, the waiting one not among them.
    expect(store.sentIds.prune(0, 4)).toBe(7)
    const kept = ['waiting', ...Array.from({ length: 10 }, (_, i) => `m${i}`)].filter((id) =>
      store.sentIds.has(DOC, id),
    )
    expect(kept).toEqual(['waiting', 'm7', 'm8', 'm9'])
    // By age too the waiting one stays.
    expect(store.sentIds.prune(10_000, 1000)).toBe(3)
    expect(store.sentIds.has(DOC, 'waiting')).toBe(true)
  })

  it('stores a sent id in at most 256 bytes of file (the count bound in bytes)', () => {
    const dir = tempDir()
    const store = openReplicaStore(dir)
    const ROWS = 20_000
    const ids = Array.from({ length: ROWS }, (_, i) => `${i.toString(16).padStart(8, '0')}${'0'.repeat(24)}`)
    for (let i = 0; i < ROWS; i += 1000)
      store.sentIds.remember(DOC, '6f1c2d4e-9a8b-4c7d-8e6f-5a4b3c2d1e0f', ids.slice(i, i + 1000), i)
    expect(store.sentIds.count(DOC)).toBe(ROWS)
    const empty = openReplicaStore(tempDir())
    empty.close()
    store.close() // everything in the one file
    const perRow = (statSync(join(dir, STORE_FILE)).size - statSync(empty.path).size) / ROWS
    expect(perRow).toBeLessThanOrEqual(256)
  })

  it('opens read-only without creating anything, and refuses to write there', () => {
    const dir = tempDir()
    expect(() => openReplicaStore(join(dir, 'none'), { readonly: true })).toThrow(StoreError)
    const rw = openReplicaStore(dir)
    rw.appendUpdate(DOC, Y.encodeStateAsUpdate(editingSession(3, 5).doc))
    rw.close()
    const ro = open2(dir)
    expect(ro.logSize(DOC).rows).toBe(1)
    expect(() => ro.appendUpdate(DOC, new Uint8Array([0, 0]))).toThrow(/read-only/)
  })

  it('refuses to start from a log row that does not decode, naming the store', () => {
    const store = open(tempDir())
    store.appendUpdate(DOC, new Uint8Array([9, 9, 9, 9]))
    expect(() => loadReplica(store, DOC)).toThrow(/replica\.sqlite3.*does not decode/)
  })
})

function open2(dir: string): ReplicaStore {
  const store = openReplicaStore(dir, { readonly: true })
  onTestFinished(() => store.close())
  return store
}
