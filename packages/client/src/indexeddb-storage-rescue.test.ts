import 'fake-indexeddb/auto'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { createIndexedDbStorage } from './indexeddb-storage.ts'
import { MAX_RESCUE_WRITERS, type RescueSlot } from './storage.ts'

const DOC = '00000000-0000-4000-8000-00000000000a'
const OTHER_DOC = '00000000-0000-4000-8000-00000000000b'

/** A Map-backed stand-in for the browser's localStorage (Node has none); `failWrites` mimics a full quota. */
class MemoryLocalStorage {
  readonly items = new Map<string, string>()
  failWrites = false
  getItem(key: string): string | null {
    return this.items.get(key) ?? null
  }
  setItem(key: string, value: string): void {
    if (this.failWrites) throw new DOMException('quota', 'QuotaExceededError')
    this.items.set(key, value)
  }
  removeItem(key: string): void {
    this.items.delete(key)
  }
}

function withLocalStorage(): MemoryLocalStorage {
  const storage = new MemoryLocalStorage()
  vi.stubGlobal('localStorage', storage)
  return storage
}

function rescueOf(docId: string, options: Parameters<typeof createIndexedDbStorage>[1] = {}): RescueSlot {
  const rescue = createIndexedDbStorage(docId, options).rescue
  if (rescue === undefined) throw new Error('expected a rescue slot')
  return rescue
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('IndexedDB storage: the localStorage rescue slot', () => {
  test('has no rescue slot where the platform has no localStorage', () => {
    expect(typeof localStorage).toBe('undefined')
    expect(createIndexedDbStorage(DOC, { prefix: 'p' })).not.toHaveProperty('rescue')
  })

  test('has a rescue slot where localStorage exists, empty until something is saved', () => {
    withLocalStorage()
    const rescue = rescueOf(DOC, { prefix: 'p' })
    expect(rescue.peek()).toBeUndefined()
  })

  test('keeps the saved bytes under a per-document key until cleared', () => {
    const local = withLocalStorage()
    const rescue = rescueOf(DOC, { prefix: 'p' })
    const state = new Uint8Array([0, 1, 127, 128, 200, 255])
    expect(rescue.save(state)).toBe(true)
    expect([...local.items.keys()]).toEqual([`p:doc:${DOC}:rescue`])
    expect(rescue.peek()).toEqual(state)
    expect(rescueOf(OTHER_DOC, { prefix: 'p' }).peek()).toBeUndefined()
    rescue.clear()
    expect(rescue.peek()).toBeUndefined()
    expect(local.items.size).toBe(0)
  })

  test('the default prefix names the rescue key e2e-col', () => {
    const local = withLocalStorage()
    expect(rescueOf(DOC).save(new Uint8Array([1]))).toBe(true)
    expect([...local.items.keys()]).toEqual([`e2e-col:doc:${DOC}:rescue`])
  })

  test('a state larger than one base64 chunk round-trips byte for byte', () => {
    withLocalStorage()
    const rescue = rescueOf(DOC, { prefix: 'p' })
    const state = Uint8Array.from({ length: 0x8000 * 2 + 17 }, (_, i) => (i * 31 + (i >> 8)) & 0xff)
    expect(rescue.save(state)).toBe(true)
    const back = rescue.peek()
    // Buffer.equals: toEqual walks 64 K elements slowly.
    expect(back !== undefined && Buffer.from(back).equals(Buffer.from(state))).toBe(true)
  })

  test('refuses a state over maxRescueBytes and keeps one of exactly that size', () => {
    withLocalStorage()
    const rescue = rescueOf(DOC, { prefix: 'p', maxRescueBytes: 4 })
    expect(rescue.save(new Uint8Array([1, 2, 3, 4, 5]))).toBe(false)
    expect(rescue.peek()).toBeUndefined()
    expect(rescue.save(new Uint8Array([1, 2, 3, 4]))).toBe(true)
    expect(rescue.peek()).toEqual(new Uint8Array([1, 2, 3, 4]))
  })

  test('the default bound is 1 MiB', () => {
    withLocalStorage()
    const rescue = rescueOf(DOC, { prefix: 'p' })
    expect(rescue.save(new Uint8Array(1024 * 1024 + 1))).toBe(false)
    expect(rescue.save(new Uint8Array(1024 * 1024))).toBe(true)
    expect(rescue.peek()?.byteLength).toBe(1024 * 1024)
  })

  test('a write localStorage refuses (quota) reports false instead of throwing', () => {
    const local = withLocalStorage()
    local.failWrites = true
    expect(rescueOf(DOC, { prefix: 'p' }).save(new Uint8Array([1]))).toBe(false)
  })

  test('text that is not base64 reads as no rescue', () => {
    const local = withLocalStorage()
    local.items.set(`p:doc:${DOC}:rescue`, '*not base64*')
    expect(rescueOf(DOC, { prefix: 'p' }).peek()).toBeUndefined()
  })

  test('keeps the ids the page wrote under beside the state, the newest 64; a state saved without them drops earlier ones', () => {
    const local = withLocalStorage()
    const rescue = rescueOf(DOC, { prefix: 'p' })
    expect(rescue.save(new Uint8Array([1]), [7, 2 ** 40])).toBe(true)
    expect(local.items.get(`p:doc:${DOC}:rescue:writers`)).toBe(JSON.stringify([7, 2 ** 40]))
    expect(rescue.peekWriters?.()).toEqual([7, 2 ** 40])
    const many = Array.from({ length: MAX_RESCUE_WRITERS + 1 }, (_, i) => i)
    rescue.save(new Uint8Array([1]), many)
    expect(rescue.peekWriters?.()).toEqual(many.slice(1))
    expect(MAX_RESCUE_WRITERS).toBe(64)
    rescue.save(new Uint8Array([2]))
    expect(rescue.peekWriters?.()).toBeUndefined()
    rescue.save(new Uint8Array([3]), [1])
    rescue.clear()
    expect(local.items.size).toBe(0)
  })

  test('ids that are not client ids read as none (all the state adds is then sent)', () => {
    const local = withLocalStorage()
    const rescue = rescueOf(DOC, { prefix: 'p' })
    rescue.save(new Uint8Array([1]), [1])
    for (const junk of ['[-1]', '[1.5]', '{"a":1}', 'not json', '["1"]']) {
      local.items.set(`p:doc:${DOC}:rescue:writers`, junk)
      expect(rescue.peekWriters?.()).toBeUndefined()
    }
  })
})
