/**
 * Encoder guards a well-typed caller never trips, so the round-trip tests cannot reach them: a
 * fractional flags value, a payload longer than the 32-bit length field, a codec that returns
 * something other than text.
 */
import { describe, expect, it } from 'vitest'
import { failure, sampleEnvelope } from '../test/fixtures.ts'
import { encodeBase64Via, type Base64Codec } from './base64-codec.ts'
import { encodeEnvelope, MAX_PAYLOAD_LENGTH } from './envelope.ts'

/** A Uint8Array that reports a length past the 32-bit limit without allocating it. */
class Oversized extends Uint8Array {
  override get length(): number {
    return MAX_PAYLOAD_LENGTH + 1
  }
}

describe('encoder guards', () => {
  it('refuses a fractional flags value (its low bits alone look valid)', () => {
    expect(failure(() => encodeEnvelope(sampleEnvelope({ flags: 1.5 })))).toBe(
      'PROTO_INVALID_FIELD: flags has bits outside the v1 flag set',
    )
  })

  it('refuses a payload longer than the 32-bit length field, naming both lengths', () => {
    expect(failure(() => encodeEnvelope(sampleEnvelope({ payload: new Oversized(1) })))).toBe(
      `PROTO_LENGTH_OVERFLOW: payload of ${MAX_PAYLOAD_LENGTH + 1} bytes exceeds ${MAX_PAYLOAD_LENGTH}`,
    )
  })

  it('refuses a codec whose encoding is not a string, even of the right length', () => {
    const arrayCodec = { encode: () => ['A', 'Q', 'I', '='], decode: () => new Uint8Array(0) } as unknown as Base64Codec
    expect(failure(() => encodeBase64Via(arrayCodec, Uint8Array.of(1, 2), 0, 2))).toBe(
      'PROTO_INVALID_OPTION: the base64 codec did not produce standard padded base64',
    )
  })
})
