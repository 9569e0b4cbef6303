import { describe, expect, test } from 'vitest'
import { ClientError } from './errors.ts'
import { createMemoryStorage, type ClientStorage } from './storage.ts'
import { StorageWrites } from './storage-writes.ts'

function harness(storage: ClientStorage = createMemoryStorage()) {
  const reported: ClientError[] = []
  return { storage, reported, writes: new StorageWrites(storage, (e) => reported.push(e)) }
}

describe('StorageWrites', () => {
  test('runs tasks one after another, each after the load it began with', async () => {
    const { writes } = harness()
    const order: string[] = []
    const gate: { open?: () => void } = {}
    const load = new Promise<void>((resolve) => (gate.open = resolve))
    void writes.begin(load.then(() => void order.push('load')))
    writes.chain(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      order.push('slow')
    })
    writes.chain(async () => void order.push('fast'))
    gate.open?.()
    await writes.idle()
    expect(order).toEqual(['load', 'slow', 'fast'])
  })

  test('a failed task is reported with a stable code, and later tasks still run', async () => {
    const { writes, reported } = harness()
    const ran: string[] = []
    writes.chain(async () => {
      throw new Error('boom')
    })
    writes.chain(async () => void ran.push('after'))
    await writes.idle()
    expect(reported.map((e) => e.code)).toEqual(['CLIENT_STORAGE_FAILED'])
    expect(ran).toEqual(['after'])
  })

  test('a write that fails answers false and is reported; a disabled store is never written', async () => {
    const broken: ClientStorage = { ...createMemoryStorage(), commit: () => Promise.reject(new Error('quota')) }
    const failing = harness(broken)
    expect(await failing.writes.commit({ seqMark: 1 })).toBe(false)
    expect(failing.reported.map((e) => e.code)).toEqual(['CLIENT_STORAGE_FAILED'])

    const { writes, storage, reported } = harness()
    expect(await writes.commit({ seqMark: 5 })).toBe(true)
    writes.disable()
    expect(writes.persistent).toBe(false)
    expect(await writes.commit({ seqMark: 9 })).toBe(false)
    expect((await storage.load()).seqMark).toBe(5)
    expect(reported).toEqual([])
  })
  test("a task's own ClientError is reported as it is, not wrapped", async () => {
    const { writes, reported } = harness()
    const own = new ClientError('CLIENT_STORAGE_FAILED', 'quota exceeded while compacting')
    writes.chain(() => Promise.reject(own))
    await writes.idle()
    expect(reported).toEqual([own])
    expect(reported[0]?.message).toBe('quota exceeded while compacting')
  })

  test('another failure is wrapped with its cause, saying a storage task failed', async () => {
    const { writes, reported } = harness()
    const cause = new Error('disk gone')
    writes.chain(() => Promise.reject(cause))
    await writes.idle()
    expect(reported.map((e) => [e.code, e.message, e.cause])).toEqual([
      ['CLIENT_STORAGE_FAILED', 'storage task failed', cause],
    ])
  })

  test('a failed write is reported with its cause, saying local storage could not be written', async () => {
    const cause = new Error('quota')
    const { writes, reported } = harness({ ...createMemoryStorage(), commit: () => Promise.reject(cause) })
    expect(await writes.commit({ seqMark: 1 })).toBe(false)
    expect(reported.map((e) => [e.code, e.message, e.cause])).toEqual([
      ['CLIENT_STORAGE_FAILED', 'could not write to local storage', cause],
    ])
  })
})
