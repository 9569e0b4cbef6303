import { describe, expect, it } from 'vitest'
import { codeOf, DOC_ID, MESSAGE_ID, sampleEnvelope, SENDER_ID } from '../test/fixtures.ts'
import { encodeAttachmentRef } from './attachment-ref.ts'
import { packBatch, unpackBatch, type BatchHeader } from './batch.ts'
import { bodyByteLength, bodyCapacity, bodyLengthFor, encodeBody } from './body.ts'
import { chunkFrame, smallestBoundary } from './chunking.ts'
import { DEFAULT_MAX_PAYLOAD_BYTES, decodeEnvelope, encodeEnvelope } from './envelope.ts'

const header: BatchHeader = { docId: DOC_ID, senderId: SENDER_ID, messageId: MESSAGE_ID, seq: 3 }
const frameOf = (payloadLength: number, seq = 1): Uint8Array =>
  encodeEnvelope(sampleEnvelope({ seq, payload: new Uint8Array(payloadLength).fill(7) }))

/** A maxBodyBytes whose byte capacity is exactly `length` (base64 quanta make some lengths inexact). */
function exactBoundary(length: number): number | undefined {
  const max = bodyLengthFor(length)
  return bodyCapacity(max) === length ? max : undefined
}

describe('batch sizing at exact sizes', () => {
  it('takes maxBodyBytes 1 as a valid bound too small for any batch', () => {
    expect(codeOf(() => packBatch(header, [frameOf(1)], { maxBodyBytes: 1 }))).toBe(
      'ProtocolError:PROTO_BATCH_TOO_LARGE',
    )
    expect(codeOf(() => packBatch(header, [frameOf(1)], { maxBodyBytes: 0 }))).toBe(
      'ProtocolError:PROTO_INVALID_OPTION',
    )
  })

  it('packs every frame when the batch fills its body to the last byte', () => {
    let checked = 0
    for (let extra = 0; extra < 3; extra++) {
      const frames = [frameOf(10), frameOf(20 + extra)]
      const whole = packBatch(header, frames, { maxBodyBytes: 1_000_000 }).frame
      const max = exactBoundary(whole.length)
      if (max === undefined) continue
      checked++
      const batch = packBatch(header, frames, { maxBodyBytes: max })
      expect(batch.packed).toBe(2)
      expect(bodyByteLength(encodeBody(batch.frame))).toBeLessThanOrEqual(max)
      // One byte less of capacity leaves the second frame out.
      expect(packBatch(header, frames, { maxBodyBytes: max - 4 }).packed).toBe(1)
    }
    expect(checked).toBeGreaterThan(0)
  })

  it('counts the count varint growing to two bytes at the 128th frame', () => {
    let checked = 0
    for (let extra = 0; extra < 3; extra++) {
      const frames = Array.from({ length: 128 }, (_, i) => frameOf(i === 127 ? 1 + extra : 1, 1))
      const all = packBatch(header, frames, { maxBodyBytes: 1_000_000 })
      expect(all.packed).toBe(128)
      const max = exactBoundary(all.frame.length - 1)
      if (max === undefined) continue
      checked++
      // One byte short of the 128-frame batch: the 128th frame must stay out.
      const batch = packBatch(header, frames, { maxBodyBytes: max })
      expect(batch.packed).toBe(127)
      expect(bodyByteLength(encodeBody(batch.frame))).toBeLessThanOrEqual(max)
    }
    expect(checked).toBeGreaterThan(0)
  })

  it('names the entry whose length is cut short', () => {
    // count 1, then a length varint with its continuation bit set and nothing after.
    const batch = sampleEnvelope({ kind: 'batch', payload: Uint8Array.from([1, 0x80]) })
    let message = ''
    try {
      unpackBatch(batch)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain('entry 0 length')
  })
})

describe('chunk sizing at exact sizes', () => {
  it('sends a frame whole when it fills the body to the last byte', () => {
    let checked = 0
    for (let extra = 0; extra < 3; extra++) {
      const frame = frameOf(40 + extra)
      const max = exactBoundary(frame.length)
      if (max === undefined) continue
      checked++
      expect(chunkFrame(frame, { maxBodyBytes: max })).toEqual([frame])
      expect(chunkFrame(frame, { maxBodyBytes: max - 4 }).length).toBeGreaterThan(1)
    }
    expect(checked).toBeGreaterThan(0)
  })

  it('takes maxBodyBytes 1 as a valid bound too small for any chunk', () => {
    expect(codeOf(() => chunkFrame(frameOf(40), { maxBodyBytes: 1 }))).toBe('ProtocolError:PROTO_BOUNDARY_TOO_SMALL')
  })
})

describe('frames past the 16 MiB decoding default', () => {
  // Chunking and batching re-read a frame the caller encoded: its payload may be larger than what
  // a receiver accepts by default, and the limit they pass must be honoured, not the default.
  const big = frameOf(DEFAULT_MAX_PAYLOAD_BYTES + 1)

  it('is refused by decodeEnvelope under the default and read under an explicit limit', () => {
    expect(codeOf(() => decodeEnvelope(big))).toBe('ProtocolError:PROTO_PAYLOAD_TOO_LARGE')
    expect(decodeEnvelope(big, { maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES + 1 }).payload.length).toBe(
      DEFAULT_MAX_PAYLOAD_BYTES + 1,
    )
  })

  it('is sent whole, measured, batched and referred to as an attachment', () => {
    // Identity, not deep equality: a 16 MiB deep compare is slow and heavy.
    const sent = chunkFrame(big, { maxBodyBytes: 64 * 1024 * 1024 })
    expect(sent.length).toBe(1)
    expect(sent[0] === big).toBe(true)
    expect(smallestBoundary(big)).toBeGreaterThan(0)
    expect(packBatch(header, [big], { maxBodyBytes: 64 * 1024 * 1024 }).packed).toBe(1)
    expect(decodeEnvelope(encodeAttachmentRef(big, new Uint8Array(32))).kind).toBe('attachment')
  })
})
