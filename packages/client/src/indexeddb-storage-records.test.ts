import 'fake-indexeddb/auto'
import { describe, expect, test } from 'vitest'
import { createStore, get, set } from 'idb-keyval'
import { createIndexedDbStorage } from './indexeddb-storage.ts'
import type { OutboxEntry } from './storage.ts'

let n = 0
const fresh = () => `records-${process.pid}-${++n}`
const DOC = '00000000-0000-4000-8000-00000000000a'
const SENDER = '11111111-2222-4333-8444-555555555555'

function entry(seq: number, kind: OutboxEntry['kind'] = 'update'): OutboxEntry {
  return { seq, messageId: seq.toString(16).padStart(32, '0'), kind, payload: new Uint8Array([seq & 0xff]) }
}

/** A storage plus the raw idb-keyval store of its document, to plant records the client never writes. */
function storageWithRawDoc(prefix = fresh()) {
  return { storage: createIndexedDbStorage(DOC, { prefix }), raw: createStore(`${prefix}:doc:${DOC}`, 'state') }
}

describe('IndexedDB storage: where records live', () => {
  test('the default prefix is e2e-col, for the document and the installation databases', async () => {
    const storage = createIndexedDbStorage(DOC)
    await storage.commit({ seqMark: 7 })
    expect(await get('seqMark', createStore(`e2e-col:doc:${DOC}`, 'state'))).toBe(7)
    const sender = await storage.senderId()
    expect(await get('senderId', createStore('e2e-col', 'installation'))).toBe(sender)
  })

  test('keeps a sender id already stored in the installation database', async () => {
    const prefix = fresh()
    await set('senderId', SENDER, createStore(prefix, 'installation'))
    expect(await createIndexedDbStorage(DOC, { prefix }).senderId()).toBe(SENDER)
  })

  test('a commit without a checkpoint keeps the stored one', async () => {
    const { storage } = storageWithRawDoc()
    await storage.commit({ checkpoint: new Uint8Array([5, 6]) })
    await storage.commit({ add: [entry(1)], seqMark: 3 })
    const loaded = await storage.load()
    expect(loaded.checkpoint).toEqual(new Uint8Array([5, 6]))
    expect(loaded.skipped).toBe(0)
  })

  test('a snapshot entry reads back as a snapshot', async () => {
    const { storage } = storageWithRawDoc()
    await storage.commit({ add: [entry(1, 'snapshot'), entry(2, 'update')] })
    const loaded = await storage.load()
    expect(loaded.outbox.map((e) => e.kind)).toEqual(['snapshot', 'update'])
    expect(loaded.skipped).toBe(0)
  })
})

describe('IndexedDB storage: load trusts no stored record', () => {
  test.each<[string, IDBValidKey, unknown]>([
    ['bytes under a key other than checkpoint', 'stray', new Uint8Array([9])],
    ['a number under a key other than seqMark', 'stray', 99],
    ['a seqMark that is not a safe integer', 'seqMark', 1.5],
    ['a well-formed entry under an array key not headed outbox', ['archive', 4], entry(4)],
  ])('%s is skipped and read as nothing', async (_name, key, value) => {
    const { storage, raw } = storageWithRawDoc()
    await set(key, value, raw)
    expect(await storage.load()).toEqual({ checkpoint: undefined, outbox: [], seqMark: 0, skipped: 1 })
  })

  test('the outbox reads back in seq order even when records sit under other seqs', async () => {
    const { storage, raw } = storageWithRawDoc()
    await set(['outbox', 1], entry(9), raw)
    await set(['outbox', 2], entry(3), raw)
    await set(['outbox', 3], entry(6), raw)
    expect((await storage.load()).outbox.map((e) => e.seq)).toEqual([3, 6, 9])
  })

  test.each([
    ['null', null],
    ['a number', 5],
    ['a non-integer seq', { ...entry(1), seq: 1.5 }],
    ['a seq as text', { ...entry(1), seq: '1' }],
    ['a messageId that is not text', { ...entry(1), messageId: ['0'.repeat(32)] }],
    ['a messageId with a prefix', { ...entry(1), messageId: `x${'0'.repeat(32)}` }],
    ['a messageId with a suffix', { ...entry(1), messageId: `${'0'.repeat(32)}x` }],
    ['an unknown kind', { ...entry(1), kind: 'bogus' }],
    ['a payload that is not bytes', { ...entry(1), payload: [1] }],
  ])('an outbox record with %s is skipped', async (_name, value) => {
    const { storage, raw } = storageWithRawDoc()
    await set(['outbox', 1], value, raw)
    const loaded = await storage.load()
    expect(loaded.outbox).toEqual([])
    expect(loaded.skipped).toBe(1)
  })
})
