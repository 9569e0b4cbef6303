/** usePlatformCodecs refuses helpers it cannot trust, saying which, and records only what it was given. */
import { afterEach, describe, expect, it } from 'vitest'
import { failure } from '../test/fixtures.ts'
import type { Base64Codec } from './base64-codec.ts'
import { crc32 } from './crc32.ts'
import { usePlatformCodecs } from './platform-codecs.ts'

afterEach(() => {
  usePlatformCodecs({})
})

const encode = (b: Uint8Array): string => Buffer.from(b).toString('base64')
const decode = (s: string): Uint8Array => Buffer.from(s, 'base64')

describe('usePlatformCodecs', () => {
  it.each([
    ['without decode', { encode }],
    ['without encode', { decode }],
  ])('refuses a base64 codec %s', (_, base64) => {
    expect(failure(() => usePlatformCodecs({ base64: base64 as unknown as Base64Codec }))).toBe(
      'PROTO_INVALID_OPTION: a base64 codec needs encode and decode functions',
    )
  })

  it('refuses a decodeInto that is not a function', () => {
    const base64 = { encode, decode, decodeInto: 5 } as unknown as Base64Codec
    expect(failure(() => usePlatformCodecs({ base64 }))).toBe(
      'PROTO_INVALID_OPTION: a base64 codec’s decodeInto must be a function',
    )
  })

  it('refuses a CRC-32 that is not a function, or gets a known answer wrong', () => {
    for (const bad of [5, (b: Uint8Array) => crc32(b) ^ 1]) {
      expect(failure(() => usePlatformCodecs({ crc32: bad as (b: Uint8Array) => number }))).toBe(
        'PROTO_INVALID_OPTION: the crc32 function does not compute CRC-32/IEEE',
      )
    }
  })

  it('records only the helpers given: no key for one left out', () => {
    usePlatformCodecs({ crc32 })
    expect(Object.keys(usePlatformCodecs({ base64: { encode, decode } }))).toEqual(['crc32'])
    expect(Object.keys(usePlatformCodecs({}))).toEqual(['base64'])
  })
})
