/**
 * The common-frame path of decodeEnvelope must take every common frame itself: giving up is never
 * wrong (the checked decoder answers the same) but would cost the receive path its speed, and the
 * verdicts alone cannot show which path ran.
 */
import { describe, expect, it } from 'vitest'
import { codeOf, sampleEnvelope } from '../test/fixtures.ts'
import { decodeChecked, decodeCommon, decodeEnvelope, encodeEnvelope, FIXED_HEADER_BYTES } from './envelope.ts'
import { FLAGS, KIND_NAMES, KNOWN_FLAGS_MASK } from './kinds.ts'

const LIMIT = 16 * 1024 * 1024
// Values on both sides of the 1-, 2- and 3-byte varint limits, all below 2^21.
const SHORT = [0, 1, 127, 128, 16_383, 16_384, 2 ** 21 - 1]

describe('the common-frame path', () => {
  it('decodes every frame whose seq takes 1 to 3 varint bytes, with the checked decoder’s fields', () => {
    for (const seq of SHORT) {
      const frame = encodeEnvelope(sampleEnvelope({ seq, payload: Uint8Array.of(1, 2, 3) }))
      expect(decodeCommon(frame, LIMIT)).toEqual(decodeChecked(frame, LIMIT))
    }
  })

  it('decodes every payload length of 1 to 3 varint bytes', () => {
    for (const length of [0, 1, 127, 128, 16_383, 16_384, 70_000]) {
      const frame = encodeEnvelope(sampleEnvelope({ seq: 3, payload: new Uint8Array(length).fill(7) }))
      expect(decodeCommon(frame, LIMIT)).toEqual(decodeChecked(frame, LIMIT))
    }
  })

  it('decodes the smallest frame (seq 0, empty payload)', () => {
    const frame = encodeEnvelope(sampleEnvelope({ seq: 0, payload: new Uint8Array(0) }))
    expect(frame.length).toBe(FIXED_HEADER_BYTES + 2)
    expect(decodeCommon(frame, LIMIT)).toEqual(decodeChecked(frame, LIMIT))
  })

  it('decodes a payload exactly at the limit', () => {
    const frame = encodeEnvelope(sampleEnvelope({ payload: new Uint8Array(300) }))
    expect(decodeCommon(frame, 300)).toEqual(decodeChecked(frame, 300))
  })

  it('decodes every kind and every known flag', () => {
    for (const kind of KIND_NAMES) {
      for (const flags of [0, FLAGS.ackRequested, FLAGS.retransmit, FLAGS.deflated, KNOWN_FLAGS_MASK]) {
        const frame = encodeEnvelope(sampleEnvelope({ kind, flags, payload: Uint8Array.of(9) }))
        expect(decodeCommon(frame, LIMIT)).toEqual(decodeChecked(frame, LIMIT))
      }
    }
  })

  it('leaves a seq of 4 varint bytes to the checked decoder', () => {
    const frame = encodeEnvelope(sampleEnvelope({ seq: 2 ** 21, payload: Uint8Array.of(1) }))
    expect(decodeCommon(frame, LIMIT)).toBeUndefined()
    expect(decodeChecked(frame, LIMIT).seq).toBe(2 ** 21)
  })

  // Once the seq is found overlong nothing after it may be read as a varint: from the header's own
  // bytes a frame of just the right length (195 here) would otherwise decode.
  it('leaves an overlong seq to the checked decoder, which refuses it, at every frame length', () => {
    for (let length = 0; length <= 200; length++) {
      const canonical = encodeEnvelope(sampleEnvelope({ seq: 0, payload: new Uint8Array(length).fill(5) }))
      const frame = new Uint8Array(canonical.length + 1)
      frame.set(canonical.subarray(0, FIXED_HEADER_BYTES))
      frame.set([0x80, 0x00], FIXED_HEADER_BYTES)
      frame.set(canonical.subarray(FIXED_HEADER_BYTES + 1), FIXED_HEADER_BYTES + 2)
      expect(decodeCommon(frame, LIMIT)).toBeUndefined()
      expect(codeOf(() => decodeEnvelope(frame))).toBe('ProtocolError:PROTO_NON_CANONICAL_VARINT')
    }
  })
})
