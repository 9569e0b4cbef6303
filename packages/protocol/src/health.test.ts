import { describe, expect, it } from 'vitest'
import { decodeHealth, encodeHealth } from './health.ts'
import { isProtocolError } from './errors.ts'

describe('health payload', () => {
  it('round-trips the state vector and reads an empty payload as no fields', () => {
    const stateVector = Uint8Array.of(1, 0x85, 0x01, 7)
    const payload = encodeHealth({ stateVector })
    expect(Array.from(payload)).toEqual([1, 4, 1, 0x85, 0x01, 7])
    expect(Array.from(decodeHealth(payload).stateVector ?? [])).toEqual([1, 0x85, 0x01, 7])
    expect(decodeHealth(new Uint8Array(0))).toEqual({})
  })

  it('skips unknown tags, keeps the first of a repeated tag', () => {
    const payload = Uint8Array.of(9, 2, 0xaa, 0xbb, 1, 1, 5, 1, 1, 6)
    expect(Array.from(decodeHealth(payload).stateVector ?? [])).toEqual([5])
  })

  it('refuses a field cut short or an overlong varint with a typed error', () => {
    for (const bad of [Uint8Array.of(1), Uint8Array.of(1, 3, 0), Uint8Array.of(0x81, 0x00, 0)]) {
      let code = ''
      try {
        decodeHealth(bad)
      } catch (error) {
        code = isProtocolError(error) ? error.code : 'untyped'
      }
      expect(['PROTO_TRUNCATED', 'PROTO_NON_CANONICAL_VARINT']).toContain(code)
    }
  })
})
