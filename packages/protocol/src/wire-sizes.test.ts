import { describe, expect, it } from 'vitest'
import { sampleEnvelope } from '../test/fixtures.ts'
import { MAX_VARUINT } from './byte-reader.ts'
import { bodyByteLength, decodeBody } from './body.ts'
import { decodeChunk, encodeBodies, leastChunkData } from './chunking.ts'
import {
  decodeEnvelope,
  encodeEnvelope,
  envelopeByteLength,
  FLAGS_OFFSET,
  frameFlags,
  MAX_HEADER_BYTES,
  MAX_PAYLOAD_LENGTH,
} from './envelope.ts'
import { FLAGS } from './kinds.ts'

describe('wire sizes callers use without decoding', () => {
  it('reads the flags byte of an encoded frame at FLAGS_OFFSET', () => {
    const deflated = encodeEnvelope(sampleEnvelope({ flags: FLAGS.deflated }))
    const plain = encodeEnvelope(sampleEnvelope({ flags: 0 }))
    expect(frameFlags(deflated)).toBe(FLAGS.deflated)
    expect(frameFlags(plain)).toBe(0)
    expect(deflated[FLAGS_OFFSET]).toBe(decodeEnvelope(deflated).flags)
    expect(frameFlags(new Uint8Array(FLAGS_OFFSET))).toBe(0)
  })

  it('counts the widest header: seq and payload length at their largest varints', () => {
    expect(MAX_HEADER_BYTES).toBe(envelopeByteLength(MAX_VARUINT, MAX_PAYLOAD_LENGTH) - MAX_PAYLOAD_LENGTH)
    expect(MAX_HEADER_BYTES).toBe(66)
    // Any real envelope's header is at most that.
    const frame = encodeEnvelope(sampleEnvelope({ seq: MAX_VARUINT, payload: new Uint8Array(300) }))
    expect(frame.byteLength - 300).toBeLessThanOrEqual(MAX_HEADER_BYTES)
  })

  it('never promises more chunk data per body than a widest-header chunk carries', () => {
    for (const maxBodyBytes of [200, 2000, 4096]) {
      const least = leastChunkData(maxBodyBytes)
      const frame = encodeEnvelope(sampleEnvelope({ seq: MAX_VARUINT, payload: new Uint8Array(20_000).fill(3) }))
      const bodies = encodeBodies(frame, { maxBodyBytes })
      const parts = bodies.map((b) => decodeChunk(decodeEnvelope(decodeBody(b))))
      for (const body of bodies) expect(bodyByteLength(body)).toBeLessThanOrEqual(maxBodyBytes)
      // Every chunk but the last is full: it carries at least the promised bytes, and not far more.
      for (const p of parts.slice(0, -1)) {
        expect(p.data.byteLength).toBeGreaterThanOrEqual(least)
        expect(p.data.byteLength - least).toBeLessThan(16)
      }
    }
    expect(leastChunkData(11)).toBe(0)
  })
})
