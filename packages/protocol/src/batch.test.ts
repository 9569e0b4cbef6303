import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { arbEnvelope, codeOf, DOC_ID, MESSAGE_ID, sampleEnvelope, SENDER_ID } from '../test/fixtures.ts'
import { packBatch, unpackBatch, MAX_BATCH_ENTRIES, type BatchHeader } from './batch.ts'
import { bodyByteLength, encodeBody } from './body.ts'
import { decodeEnvelope, encodeEnvelope, type Envelope } from './envelope.ts'
import { isLocalOnly, KIND_NAMES } from './kinds.ts'

// Anything that may travel inside a batch: every network kind, chunks included, but no batch.
const arbInnerKind = fc.constantFrom(...KIND_NAMES.filter((k) => !isLocalOnly(k) && k !== 'batch'))

const header: BatchHeader = { docId: DOC_ID, senderId: SENDER_ID, messageId: MESSAGE_ID, seq: 9 }
const small = (n: number): Uint8Array => encodeEnvelope(sampleEnvelope({ seq: n, payload: new Uint8Array(n % 50) }))
const batchOf = (payload: number[]): Envelope => sampleEnvelope({ kind: 'batch', payload: Uint8Array.from(payload) })

describe('packBatch / unpackBatch', () => {
  it('packs the longest prefix that fits one body and unpacks it to the same envelopes', () => {
    fc.assert(
      fc.property(
        fc.array(arbEnvelope(arbInnerKind, 300), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 800, max: 4000 }),
        (envelopes, maxBodyBytes) => {
          const frames = envelopes.map((e) => encodeEnvelope(e))
          let batch
          try {
            batch = packBatch(header, frames, { maxBodyBytes })
          } catch (error) {
            // Only legitimate when the first frame alone cannot fit.
            expect((error as { code?: string }).code).toBe('PROTO_BATCH_TOO_LARGE')
            return
          }
          expect(bodyByteLength(encodeBody(batch.frame))).toBeLessThanOrEqual(maxBodyBytes)
          const unpacked = unpackBatch(decodeEnvelope(batch.frame))
          expect(unpacked).toEqual(envelopes.slice(0, batch.packed))
          if (batch.packed < frames.length) {
            // Greedy is maximal for a prefix: one more frame would not fit.
            const oneMore = packBatch(header, frames.slice(0, batch.packed + 1), { maxBodyBytes: 1_000_000 })
            expect(bodyByteLength(encodeBody(oneMore.frame))).toBeGreaterThan(maxBodyBytes)
          }
        },
      ),
    )
  })

  it('writes a varint count and length-prefixed entries', () => {
    const a = small(1)
    const b = small(2)
    const { frame } = packBatch(header, [a, b], { maxBodyBytes: 2000 })
    expect(decodeEnvelope(frame)).toMatchObject({ kind: 'batch', docId: DOC_ID, seq: 9, flags: 0 })
    expect(Array.from(decodeEnvelope(frame).payload)).toEqual([2, a.length, ...a, b.length, ...b])
  })

  it('stops at MAX_BATCH_ENTRIES', () => {
    const frames = Array.from({ length: MAX_BATCH_ENTRIES + 5 }, () => small(0))
    expect(packBatch(header, frames, { maxBodyBytes: 1_000_000 }).packed).toBe(MAX_BATCH_ENTRIES)
  })

  it('PROTO_BATCH_EMPTY for nothing to pack and for a batch of zero entries', () => {
    expect(codeOf(() => packBatch(header, [], { maxBodyBytes: 2000 }))).toBe('ProtocolError:PROTO_BATCH_EMPTY')
    expect(codeOf(() => unpackBatch(batchOf([0])))).toBe('ProtocolError:PROTO_BATCH_EMPTY')
  })
  it('PROTO_BATCH_TOO_LARGE when the first frame alone does not fit', () => {
    expect(
      codeOf(() =>
        packBatch(header, [encodeEnvelope(sampleEnvelope({ payload: new Uint8Array(3000) }))], { maxBodyBytes: 2000 }),
      ),
    ).toBe('ProtocolError:PROTO_BATCH_TOO_LARGE')
  })
  it('PROTO_BATCH_NESTED for a batch inside a batch, packing and unpacking', () => {
    const inner = packBatch(header, [small(1)], { maxBodyBytes: 2000 }).frame
    expect(codeOf(() => packBatch(header, [inner], { maxBodyBytes: 2000 }))).toBe('ProtocolError:PROTO_BATCH_NESTED')
    expect(codeOf(() => unpackBatch(batchOf([1, inner.length, ...inner])))).toBe('ProtocolError:PROTO_BATCH_NESTED')
  })
  it('PROTO_LOCAL_ONLY for an ack or error inside a batch', () => {
    const ack = encodeEnvelope(sampleEnvelope({ kind: 'ack' }))
    expect(codeOf(() => packBatch(header, [ack], { maxBodyBytes: 2000 }))).toBe('ProtocolError:PROTO_LOCAL_ONLY')
    expect(codeOf(() => unpackBatch(batchOf([1, ack.length, ...ack])))).toBe('ProtocolError:PROTO_LOCAL_ONLY')
  })
  it('PROTO_BATCH_MALFORMED for an empty entry', () => {
    expect(codeOf(() => unpackBatch(batchOf([1, 0])))).toBe('ProtocolError:PROTO_BATCH_MALFORMED')
  })
  it('PROTO_LENGTH_OVERFLOW for a count over MAX_BATCH_ENTRIES', () => {
    expect(codeOf(() => unpackBatch(batchOf([0x81, 0x08])))).toBe('ProtocolError:PROTO_LENGTH_OVERFLOW')
  })
  it('PROTO_TRUNCATED for an entry longer than what is left', () => {
    const a = small(1)
    expect(codeOf(() => unpackBatch(batchOf([1, a.length + 1, ...a])))).toBe('ProtocolError:PROTO_TRUNCATED')
  })
  it('PROTO_TRAILING_BYTES for bytes after the last entry', () => {
    const a = small(1)
    expect(codeOf(() => unpackBatch(batchOf([1, a.length, ...a, 0])))).toBe('ProtocolError:PROTO_TRAILING_BYTES')
  })
  it('PROTO_WRONG_KIND for a non-batch envelope', () => {
    expect(codeOf(() => unpackBatch(sampleEnvelope()))).toBe('ProtocolError:PROTO_WRONG_KIND')
  })
  it('passes inner decoding errors through with their own code', () => {
    const a = small(1)
    a[0] = 0
    expect(codeOf(() => unpackBatch(batchOf([1, a.length, ...a])))).toBe('ProtocolError:PROTO_BAD_MAGIC')
  })
  it('PROTO_INVALID_OPTION for a bad boundary', () => {
    expect(codeOf(() => packBatch(header, [small(1)], { maxBodyBytes: 0 }))).toBe('ProtocolError:PROTO_INVALID_OPTION')
  })
})
