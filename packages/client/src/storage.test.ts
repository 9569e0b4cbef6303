import { describe, expect, test } from 'vitest'
import { createMemoryStorage, type OutboxEntry } from './storage.ts'

const entry = (seq: number): OutboxEntry => ({
  seq,
  messageId: `m${seq}`,
  kind: 'update',
  payload: new Uint8Array([seq]),
})

describe('createMemoryStorage', () => {
  test('starts empty, with one sender id for its lifetime', async () => {
    const storage = createMemoryStorage()
    expect(await storage.load()).toEqual({ checkpoint: undefined, outbox: [], seqMark: 0, skipped: 0 })
    const sender = await storage.senderId()
    expect(sender).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(await storage.senderId()).toBe(sender)
    expect(await createMemoryStorage().senderId()).not.toBe(sender)
  })

  test('a commit applies checkpoint, removals, additions and the highest mark; the outbox reads back in seq order', async () => {
    const storage = createMemoryStorage()
    await storage.commit({ add: [entry(12), entry(3), entry(7)], seqMark: 50, checkpoint: new Uint8Array([1]) })
    await storage.commit({ remove: [7], seqMark: 20 })
    await storage.commit({})
    const stored = await storage.load()
    expect(stored.outbox.map((e) => e.seq)).toEqual([3, 12])
    expect(stored.seqMark).toBe(50)
    expect(stored.checkpoint).toEqual(new Uint8Array([1]))
    await storage.commit({ checkpoint: new Uint8Array([2]), seqMark: 60 })
    expect(await storage.load()).toMatchObject({ checkpoint: new Uint8Array([2]), seqMark: 60 })
  })

  test('the rescue slot keeps a copy of what it saved until cleared', () => {
    const rescue = createMemoryStorage().rescue
    const state = new Uint8Array([1, 2])
    expect(rescue?.peek()).toBeUndefined()
    expect(rescue?.save(state)).toBe(true)
    state[0] = 9
    expect(rescue?.peek()).toEqual(new Uint8Array([1, 2]))
    rescue?.clear()
    expect(rescue?.peek()).toBeUndefined()
  })
})
