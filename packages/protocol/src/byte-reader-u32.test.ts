import { describe, expect, it } from 'vitest'
import { ByteReader, readU32 } from './byte-reader.ts'

describe('reading a big-endian u32', () => {
  it('ByteReader.u32 reads every byte in its place, at an offset, and moves the cursor on', () => {
    const r = new ByteReader(Uint8Array.of(0xaa, 0xfe, 0xdc, 0xba, 0x98, 0x01), 'test', 1)
    expect(r.u32('field')).toBe(0xfedcba98)
    expect(r.offset).toBe(5)
  })

  it('readU32 agrees with ByteReader.u32', () => {
    const bytes = Uint8Array.of(0, 0x12, 0x34, 0x56, 0x78)
    expect(readU32(bytes, 1)).toBe(new ByteReader(bytes, 'test', 1).u32('field'))
  })
})
