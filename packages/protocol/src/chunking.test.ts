import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  codeOf,
  DOC_ID,
  expectSameBytes,
  MESSAGE_ID,
  patternBytes,
  sampleEnvelope,
  SENDER_ID,
} from '../test/fixtures.ts'
import { bodyByteLength, decodeBody, encodeBody } from './body.ts'
import { chunkFrame, decodeChunk, encodeBodies, smallestBoundary } from './chunking.ts'
import { crc32 } from './crc32.ts'
import { decodeEnvelope, encodeEnvelope, type Envelope } from './envelope.ts'
import { FLAGS } from './kinds.ts'

const frameOf = (payloadLength: number, overrides: Partial<Envelope> = {}): Uint8Array =>
  encodeEnvelope(sampleEnvelope({ payload: patternBytes(payloadLength, payloadLength + 1), ...overrides }))

const varintLength = (n: number): number => (n < 0x80 ? 1 : 1 + varintLength(Math.floor(n / 128)))

/**
 * The fewest bodies any chunking can use, derived from the grammar alone: a body of B UTF-8 bytes holds
 * floor((B − 11) / 4) · 3 frame bytes; a chunk frame is 53 + |seq| + |payloadLength| + 16 + data bytes.
 */
function minimumBodies(frameLength: number, seq: number, boundary: number): number {
  const capacity = Math.floor((boundary - 11) / 4) * 3
  if (frameLength <= capacity) return 1
  let data = capacity
  while (data > 0 && 53 + varintLength(seq) + varintLength(16 + data) + 16 + data > capacity) data--
  return Math.ceil(frameLength / data)
}

const reassemble = (bodies: string[]): Uint8Array => {
  const frames = bodies.map((b) => decodeBody(b))
  if (frames.length === 1) return frames[0] ?? new Uint8Array(0)
  const parts = frames.map((f) => decodeChunk(decodeEnvelope(f)))
  const total = parts[0]?.totalLength ?? 0
  const out = new Uint8Array(total)
  let offset = 0
  for (const p of parts) {
    // Chunks are already in index order here; the reassembler tests cover shuffled arrival.
    out.set(p.data, offset)
    offset += p.data.length
  }
  return out
}

describe('chunkFrame / encodeBodies', () => {
  it('sends a frame that fits as one unchunked body', () => {
    const frame = frameOf(100)
    const bodies = encodeBodies(frame, { maxBodyBytes: 2000 })
    expect(bodies).toHaveLength(1)
    expect(decodeBody(bodies[0] ?? '')).toEqual(frame)
  })

  it('gives chunks the original header with kind chunk, and index, count, total and CRC-32 metadata', () => {
    const frame = frameOf(5000, { flags: FLAGS.ackRequested, seq: 1234 })
    const chunks = chunkFrame(frame, { maxBodyBytes: 2000 })
    expect(chunks.length).toBe(4)
    chunks.forEach((chunk, index) => {
      const envelope = decodeEnvelope(chunk)
      expect(envelope).toMatchObject({
        kind: 'chunk',
        flags: FLAGS.ackRequested,
        docId: DOC_ID,
        senderId: SENDER_ID,
        messageId: MESSAGE_ID,
        seq: 1234,
      })
      const part = decodeChunk(envelope)
      expect(part).toMatchObject({ index, count: 4, totalLength: frame.length, checksum: crc32(frame) })
      // Metadata is four big-endian u32 at the start of the payload.
      expect(Array.from(envelope.payload.subarray(0, 8))).toEqual([0, 0, 0, index, 0, 0, 0, 4])
    })
    expectSameBytes(reassemble(chunks.map((c) => encodeBody(c))), frame)
  })

  it('keeps every body within the boundary and uses the fewest bodies possible (0 B to 4 MiB, smallest boundary to 64 KiB)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 0, max: 4 * 1024 * 1024 })),
        fc.oneof(fc.nat(300), fc.maxSafeNat()),
        fc.integer({ min: 0, max: 64 * 1024 }),
        (payloadLength, seq, boundarySeed) => {
          const frame = frameOf(payloadLength, { seq })
          const smallest = smallestBoundary(frame)
          // Bias towards small boundaries when the payload is large, or the run takes seconds.
          const floor = Math.max(smallest, Math.min(64 * 1024, Math.ceil(payloadLength / 2000)))
          const boundary = floor + (boundarySeed % (64 * 1024 - floor + 1))
          const bodies = encodeBodies(frame, { maxBodyBytes: boundary })
          for (const body of bodies) expect(bodyByteLength(body)).toBeLessThanOrEqual(boundary)
          expect(bodies.length).toBe(minimumBodies(frame.length, seq, boundary))
          expectSameBytes(reassemble(bodies), frame)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('works at exactly the smallest boundary and fails one byte below it', () => {
    for (const payloadLength of [0, 10, 100, 1000]) {
      const frame = frameOf(payloadLength)
      const smallest = smallestBoundary(frame)
      expectSameBytes(reassemble(encodeBodies(frame, { maxBodyBytes: smallest })), frame)
      expect(codeOf(() => encodeBodies(frame, { maxBodyBytes: smallest - 1 }))).toBe(
        'ProtocolError:PROTO_BOUNDARY_TOO_SMALL',
      )
    }
  })

  it('PROTO_BOUNDARY_TOO_SMALL names the smallest boundary that works', () => {
    const frame = frameOf(1000)
    expect(() => encodeBodies(frame, { maxBodyBytes: 50 })).toThrow(
      `the smallest boundary that works for this frame is ${smallestBoundary(frame)}`,
    )
  })

  it('PROTO_LOCAL_ONLY for ack and error envelopes', () => {
    for (const kind of ['ack', 'error'] as const) {
      expect(codeOf(() => chunkFrame(frameOf(10, { kind }), { maxBodyBytes: 2000 }))).toBe(
        'ProtocolError:PROTO_LOCAL_ONLY',
      )
    }
  })

  it('PROTO_WRONG_KIND for chunking a chunk', () => {
    const chunk = chunkFrame(frameOf(5000), { maxBodyBytes: 2000 })[0] ?? new Uint8Array(0)
    expect(codeOf(() => chunkFrame(chunk, { maxBodyBytes: 200 }))).toBe('ProtocolError:PROTO_WRONG_KIND')
  })

  it('PROTO_INVALID_OPTION for a boundary that is not a positive integer', () => {
    for (const maxBodyBytes of [0, -5, 1.5, Number.NaN]) {
      expect(codeOf(() => chunkFrame(frameOf(10), { maxBodyBytes }))).toBe('ProtocolError:PROTO_INVALID_OPTION')
    }
  })

  it('validates the frame it is given', () => {
    expect(codeOf(() => chunkFrame(Uint8Array.of(1, 2, 3), { maxBodyBytes: 2000 }))).toBe(
      'ProtocolError:PROTO_BAD_MAGIC',
    )
  })
})

const chunkWith = (meta: number[], data: number[] = [1]): Envelope => {
  const payload = new Uint8Array(16 + data.length)
  const view = new DataView(payload.buffer)
  meta.forEach((v, i) => view.setUint32(4 * i, v))
  payload.set(data, 16)
  return sampleEnvelope({ kind: 'chunk', payload })
}

describe('decodeChunk', () => {
  it('reads index, count, total length and checksum', () => {
    expect(decodeChunk(chunkWith([1, 3, 10, 0xdeadbeef], [7, 8]))).toEqual({
      index: 1,
      count: 3,
      totalLength: 10,
      checksum: 0xdeadbeef,
      data: Uint8Array.of(7, 8),
    })
  })
  it('PROTO_WRONG_KIND for a non-chunk envelope', () => {
    expect(codeOf(() => decodeChunk(sampleEnvelope()))).toBe('ProtocolError:PROTO_WRONG_KIND')
  })
  it('PROTO_TRUNCATED for metadata shorter than 16 bytes', () => {
    expect(codeOf(() => decodeChunk(sampleEnvelope({ kind: 'chunk', payload: new Uint8Array(15) })))).toBe(
      'ProtocolError:PROTO_TRUNCATED',
    )
  })
  it.each([
    ['an index not below the count', [3, 3, 10, 0]],
    ['a count below 2', [0, 1, 10, 0]],
    ['a total shorter than the count', [0, 5, 4, 0]],
  ])('PROTO_CHUNK_MALFORMED for %s', (_name, meta) => {
    expect(codeOf(() => decodeChunk(chunkWith(meta)))).toBe('ProtocolError:PROTO_CHUNK_MALFORMED')
  })
  it('PROTO_CHUNK_MALFORMED for empty data and for data longer than the total', () => {
    expect(codeOf(() => decodeChunk(chunkWith([0, 2, 10, 0], [])))).toBe('ProtocolError:PROTO_CHUNK_MALFORMED')
    expect(codeOf(() => decodeChunk(chunkWith([0, 2, 2, 0], [1, 2, 3])))).toBe('ProtocolError:PROTO_CHUNK_MALFORMED')
  })
})
