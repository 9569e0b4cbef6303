import 'fake-indexeddb/auto'
import { describe, expect, test } from 'vitest'
import { set, createStore } from 'idb-keyval'
import { createIndexedDbStorage } from './indexeddb-storage.ts'
import type { OutboxEntry } from './storage.ts'

let n = 0
const fresh = () => `test-${process.pid}-${++n}`
const DOC = '00000000-0000-4000-8000-00000000000a'

function entry(seq: number, byte = seq): OutboxEntry {
  return { seq, messageId: seq.toString(16).padStart(32, '0'), kind: 'update', payload: new Uint8Array([byte]) }
}

describe('IndexedDB storage (fake-indexeddb + idb-keyval)', () => {
  test('keeps one sender id per installation, across storages and reloads', async () => {
    const prefix = fresh()
    const a = await createIndexedDbStorage(DOC, { prefix }).senderId()
    const b = await createIndexedDbStorage('00000000-0000-4000-8000-00000000000b', { prefix }).senderId()
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(b).toBe(a)
    expect(await createIndexedDbStorage(DOC, { prefix: fresh() }).senderId()).not.toBe(a)
  })

  test('reads the outbox back in numeric seq order with payload bytes intact', async () => {
    const storage = createIndexedDbStorage(DOC, { prefix: fresh() })
    await storage.commit({ add: [entry(10), entry(2), entry(9)], seqMark: 4096 })
    const loaded = await storage.load()
    expect(loaded.outbox.map((e) => e.seq)).toEqual([2, 9, 10])
    expect(loaded.outbox[0]?.payload).toBeInstanceOf(Uint8Array)
    expect([...(loaded.outbox[2]?.payload ?? [])]).toEqual([10])
    expect(loaded.seqMark).toBe(4096)
    expect(loaded.checkpoint).toBeUndefined()
  })

  test('a commit applies checkpoint, removals and additions together', async () => {
    const storage = createIndexedDbStorage(DOC, { prefix: fresh() })
    await storage.commit({ add: [entry(1), entry(2), entry(3)] })
    await storage.commit({ checkpoint: new Uint8Array([7, 7]), remove: [1, 3], add: [entry(4)] })
    const loaded = await storage.load()
    expect(loaded.outbox.map((e) => e.seq)).toEqual([2, 4])
    expect([...(loaded.checkpoint ?? [])]).toEqual([7, 7])
  })

  test('a failing commit leaves nothing half-written', async () => {
    const storage = createIndexedDbStorage(DOC, { prefix: fresh() })
    await storage.commit({ add: [entry(1)] })
    // A function value cannot be structured-cloned: the put throws inside the transaction.
    const poisoned = { ...entry(2), payload: (() => 0) as unknown as Uint8Array }
    await expect(storage.commit({ remove: [1], add: [poisoned] })).rejects.toMatchObject({ name: 'DataCloneError' })
    expect((await storage.load()).outbox.map((e) => e.seq)).toEqual([1])
  })

  test('skips and counts unreadable records instead of failing the load', async () => {
    const prefix = fresh()
    const storage = createIndexedDbStorage(DOC, { prefix })
    await storage.commit({ add: [entry(1)] })
    const raw = createStore(`${prefix}:doc:${DOC}`, 'state')
    await set(['outbox', 2], { seq: 2, messageId: 'nope', kind: 'update', payload: new Uint8Array() }, raw)
    await set('checkpoint', 'not bytes', raw)
    const loaded = await storage.load()
    expect(loaded.outbox.map((e) => e.seq)).toEqual([1])
    expect(loaded.skipped).toBe(2)
  })
})
