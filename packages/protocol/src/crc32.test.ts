import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { expectCrc32AgreesAtOffsets, patternBytes } from '../test/fixtures.ts'
import { crc32 } from './crc32.ts'

/** The textbook bit-at-a-time CRC-32/IEEE, as an independent reference for the table-driven one. */
function referenceCrc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const byte of bytes) {
    c ^= byte
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1
  }
  return (c ^ 0xffffffff) >>> 0
}

describe('crc32', () => {
  it('gives the CRC-32/IEEE check value for "123456789"', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926)
    expect(crc32(new Uint8Array(0))).toBe(0)
  })

  it('agrees with the bitwise reference on random data and sub-ranges (slice-by-16 steps and the byte tail)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const start = bytes.length === 0 ? 0 : a % bytes.length
        const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1))
        expect(crc32(bytes, start, end)).toBe(referenceCrc32(bytes.subarray(start, end)))
      }),
    )
  })

  it('agrees with the bitwise reference on a large buffer at unaligned offsets', () => {
    expectCrc32AgreesAtOffsets(patternBytes(200_003), referenceCrc32)
  })
})
