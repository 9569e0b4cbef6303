/**
 * Id texts are cached per field (the last one read is reused when the bytes repeat): the cache
 * must never answer for bytes it has not seen, including the all-zero id before anything was read.
 */
import { describe, expect, it } from 'vitest'
import { freshIds } from '../test/fixtures.ts'

describe('id text cache', () => {
  it('reads the all-zero ids correctly as the very first read', async () => {
    const ids = await freshIds()
    const zero = new Uint8Array(16)
    expect(ids.readUuid(zero, 0, 0)).toBe('00000000-0000-0000-0000-000000000000')
    expect(ids.readUuid(zero, 0, 1)).toBe('00000000-0000-0000-0000-000000000000')
    expect(ids.readMessageId(zero, 0)).toBe('00000000000000000000000000000000')
  })

  it('answers ids that differ only in their last byte, read one after the other', async () => {
    const ids = await freshIds()
    const a = Uint8Array.from({ length: 17 }, (_, i) => i)
    const b = a.slice()
    b[16] = 0xff
    expect(ids.readMessageId(a, 1)).toBe('0102030405060708090a0b0c0d0e0f10')
    expect(ids.readMessageId(b, 1)).toBe('0102030405060708090a0b0c0d0e0fff')
    expect(ids.readMessageId(a, 1)).toBe('0102030405060708090a0b0c0d0e0f10')
  })

  it('answers a repeated id at the very start of a buffer', async () => {
    const ids = await freshIds()
    const a = Uint8Array.from({ length: 16 }, (_, i) => 0x10 + i)
    expect(ids.readUuid(a, 0)).toBe('10111213-1415-1617-1819-1a1b1c1d1e1f')
    expect(ids.readUuid(a, 0)).toBe('10111213-1415-1617-1819-1a1b1c1d1e1f')
  })

  it('compares the bytes of the id being read, not the bytes before it', async () => {
    const ids = await freshIds()
    const a = Uint8Array.from({ length: 16 }, (_, i) => 0x10 + i)
    expect(ids.readUuid(a, 0)).toBe('10111213-1415-1617-1819-1a1b1c1d1e1f')
    // The cached id, reversed, ends where the next id starts: read backwards from there it matches.
    const b = new Uint8Array(31).fill(0xee)
    b.set(
      Uint8Array.from({ length: 16 }, (_, i) => 0x1f - i),
      0,
    )
    expect(ids.readUuid(b, 15)).toBe('10eeeeee-eeee-eeee-eeee-eeeeeeeeeeee')
  })
})
