/**
 * The golden vectors in test-vectors/*.json are normative (docs/protocol.md §3.10): any reader or
 * writer of e2e-col frames must reproduce them. These tests check both directions, byte for byte.
 */
import { describe, expect, it } from 'vitest'
import batchVector from '../test-vectors/batch.json' with { type: 'json' }
import chunkedVector from '../test-vectors/chunked.json' with { type: 'json' }
import envelopeVectors from '../test-vectors/envelopes.json' with { type: 'json' }
import invalidVectors from '../test-vectors/invalid.json' with { type: 'json' }
import { codeOf } from '../test/fixtures.ts'
import {
  chunkFrame,
  createReassembler,
  decodeBody,
  decodeEnvelope,
  encodeBody,
  encodeEnvelope,
  KIND_NAMES,
  KNOWN_FLAGS_MASK,
  packBatch,
  unpackBatch,
  type Envelope,
  type Kind,
} from './index.ts'

interface StoredEnvelope {
  readonly kind: string
  readonly flags: number
  readonly docId: string
  readonly senderId: string
  readonly messageId: string
  readonly seq: number
  readonly payload: string
}

const fromHex = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16))
const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const envelopeOf = (stored: StoredEnvelope): Envelope => ({
  ...stored,
  kind: stored.kind as Kind,
  payload: fromHex(stored.payload),
})

describe('golden vectors', () => {
  it('cover every kind in the table, and every flag bit', () => {
    expect(envelopeVectors.vectors.slice(0, KIND_NAMES.length).map((v) => v.envelope.kind)).toEqual(KIND_NAMES)
    const flagsSeen = envelopeVectors.vectors.reduce((all, v) => all | v.envelope.flags, 0)
    expect(flagsSeen).toBe(KNOWN_FLAGS_MASK)
  })

  it.each(envelopeVectors.vectors)(
    '$name: decodes to the stored envelope and encodes to the stored hex and body',
    (vector) => {
      const expected = envelopeOf(vector.envelope)
      expect(decodeEnvelope(fromHex(vector.hex))).toEqual(expected)
      expect(toHex(encodeEnvelope(expected))).toBe(vector.hex)
      expect(encodeBody(fromHex(vector.hex))).toBe(vector.body)
      expect(toHex(decodeBody(vector.body))).toBe(vector.hex)
    },
  )

  it('chunked: chunking the stored frame gives the stored chunks, and they reassemble to it', () => {
    const frame = fromHex(chunkedVector.hex)
    expect(toHex(encodeEnvelope(envelopeOf(chunkedVector.envelope)))).toBe(chunkedVector.hex)
    expect(chunkFrame(frame, { maxBodyBytes: chunkedVector.maxBodyBytes }).map(toHex)).toEqual(chunkedVector.chunks)
    expect(chunkedVector.chunks.map((c) => encodeBody(fromHex(c)))).toEqual(chunkedVector.bodies)
    const r = createReassembler({ maxPartialMessages: 1, maxPartialBytes: 4096, ttlMs: 1000 })
    const results = chunkedVector.bodies
      .map((_, i, all) => all[all.length - 1 - i] ?? '')
      .map((b) => r.push(decodeEnvelope(decodeBody(b)), 0))
    const last = results.at(-1)
    expect(last?.status === 'complete' && toHex(last.frame)).toBe(chunkedVector.hex)
  })

  it('batch: packing the stored entries gives the stored hex, and unpacking gives the entries back', () => {
    const entries = batchVector.entries.map(envelopeOf)
    const packed = packBatch(
      batchVector.header,
      entries.map((e) => encodeEnvelope(e)),
      { maxBodyBytes: 2000 },
    )
    expect(packed.packed).toBe(entries.length)
    expect(toHex(packed.frame)).toBe(batchVector.hex)
    expect(encodeBody(packed.frame)).toBe(batchVector.body)
    expect(unpackBatch(decodeEnvelope(decodeBody(batchVector.body)))).toEqual(entries)
  })

  it.each(invalidVectors.envelopes)('invalid envelope, $name: $code', (vector) => {
    expect(codeOf(() => decodeEnvelope(fromHex(vector.hex)))).toBe(`ProtocolError:${vector.code}`)
  })

  it.each(invalidVectors.bodies)('invalid body, $name: $code', (vector) => {
    expect(codeOf(() => decodeBody(vector.body))).toBe(`ProtocolError:${vector.code}`)
  })
})
