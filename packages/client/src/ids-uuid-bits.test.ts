import { afterEach, describe, expect, test, vi } from 'vitest'
import { newUuid } from './ids.ts'

/** Makes crypto.getRandomValues fill every byte with `byte`, so the UUID's fixed bits stand out. */
function randomBytesAll(byte: number): void {
  vi.spyOn(crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
    if (array instanceof Uint8Array) array.fill(byte)
    return array
  })
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('newUuid sets only the version and variant bits', () => {
  test('with all random bits set, only the version nibble and the variant bits are forced', () => {
    randomBytesAll(0xff)
    expect(newUuid()).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff')
  })

  test('with no random bits set, the version and variant bits still appear', () => {
    randomBytesAll(0x00)
    expect(newUuid()).toBe('00000000-0000-4000-8000-000000000000')
  })
})
