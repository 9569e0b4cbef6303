import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { codeOf, expectSameBytes, patternBytes, sampleEnvelope } from '../test/fixtures.ts'
import { chunkFrame } from './chunking.ts'
import { decodeEnvelope, encodeEnvelope, type Envelope } from './envelope.ts'
import { isProtocolError } from './errors.ts'
import { createReassembler, type PushResult, type ReassemblerOptions } from './reassembler.ts'

const roomy: ReassemblerOptions = { maxPartialMessages: 16, maxPartialBytes: 1 << 24, ttlMs: 60_000 }
const messageId = (n: number): string => n.toString(16).padStart(32, '0')

function chunksOf(
  payloadLength: number,
  overrides: Partial<Envelope> = {},
  maxBodyBytes = 300,
): { frame: Uint8Array; chunks: Envelope[] } {
  const frame = encodeEnvelope(sampleEnvelope({ payload: patternBytes(payloadLength, payloadLength), ...overrides }))
  return { frame, chunks: chunkFrame(frame, { maxBodyBytes }).map((c) => decodeEnvelope(c)) }
}

/** A chunk whose payload byte at `offset` is XORed with `mask`, in a fresh buffer. */
function tampered(chunk: Envelope, offset: number, mask = 1): Envelope {
  const payload = chunk.payload.slice()
  payload[offset] = (payload[offset] ?? 0) ^ mask
  return { ...chunk, payload }
}

const statuses = (results: PushResult[]): string[] => results.map((r) => r.status)
const dataBytes = (c: Envelope | undefined): number => (c?.payload.length ?? 0) - 16

describe('createReassembler', () => {
  it('rebuilds the exact frame from shuffled, duplicated chunks and completes exactly once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2100, max: 20_000 }),
        fc.integer({ min: 160, max: 2000 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (payloadLength, maxBodyBytes, swaps, duplicates) => {
          const { frame, chunks } = chunksOf(payloadLength, {}, maxBodyBytes)
          const deliveries = [...chunks, ...duplicates.map((d) => chunks[d % chunks.length] as Envelope)]
          // Fisher–Yates driven by the generated numbers, so fast-check can shrink the order.
          const shuffled = [...deliveries]
          for (let i = shuffled.length - 1; i > 0; i--) {
            const j = (swaps[i % swaps.length] ?? 0) % (i + 1)
            ;[shuffled[i], shuffled[j]] = [shuffled[j] as Envelope, shuffled[i] as Envelope]
          }
          const r = createReassembler(roomy)
          const results = shuffled.map((c, i) => r.push(c, i))
          const completions = results.filter((x) => x.status === 'complete')
          expect(completions).toHaveLength(1)
          const done = completions[0]
          if (done?.status === 'complete') {
            expectSameBytes(done.frame, frame)
            expect(done.envelope.payload.length).toBe(payloadLength)
          }
          expect(results.every((x) => x.status !== 'rejected' && x.evicted.length === 0)).toBe(true)
          expect(r.partialMessages).toBe(0)
          expect(r.partialBytes).toBe(0)
        },
      ),
      { numRuns: 80 },
    )
  })

  it('rebuilds messages exactly whether or not their frame was granted up front (granted frames stay within maxPartialBytes)', () => {
    const a = chunksOf(3000, { messageId: messageId(1) })
    const b = chunksOf(3000, { messageId: messageId(2) })
    const c = chunksOf(500, { messageId: messageId(3) })
    // Messages 1 and 2 take the whole frame budget with their first chunks, so message 3 goes to
    // slabs; its data still fits the data bound, so nothing is evicted.
    const r = createReassembler({ ...roomy, maxPartialBytes: 6300 })
    expect(a.frame.length + b.frame.length).toBeLessThanOrEqual(6300)
    expect(a.frame.length + b.frame.length + c.frame.length).toBeGreaterThan(6300)
    const order = [
      a.chunks[0],
      b.chunks[0],
      ...c.chunks,
      ...a.chunks.slice(1).flatMap((x, i) => [x, b.chunks[i + 1]]),
    ].filter((x) => x !== undefined)
    const done = new Map<string, Uint8Array>()
    for (const chunk of order) {
      const result = r.push(chunk, 0)
      expect(result.status).not.toBe('rejected')
      expect(result.evicted).toEqual([])
      if (result.status === 'complete') done.set(result.envelope.messageId, result.frame)
    }
    expect(done.size).toBe(3)
    expectSameBytes(done.get(messageId(1)) ?? new Uint8Array(0), a.frame)
    expectSameBytes(done.get(messageId(2)) ?? new Uint8Array(0), b.frame)
    expectSameBytes(done.get(messageId(3)) ?? new Uint8Array(0), c.frame)
    expect(r.partialBytes).toBe(0)
  })

  it('hands out a completed frame that later pushes never touch', () => {
    const { frame, chunks } = chunksOf(2000)
    const r = createReassembler(roomy)
    const results = chunks.map((c) => r.push(c, 0))
    const last = results.at(-1)
    expect(last?.status).toBe('complete')
    const again = chunksOf(2000).chunks.map((c) => r.push(c, 1))
    expect(again.every((x) => x.status === 'duplicate')).toBe(true)
    if (last?.status === 'complete') expectSameBytes(last.frame, frame)
  })

  it('ignores an identical duplicate and treats chunks after completion as duplicates', () => {
    const { chunks } = chunksOf(1000)
    const r = createReassembler(roomy)
    const [first, ...rest] = chunks as [Envelope, ...Envelope[]]
    expect(r.push(first, 0).status).toBe('pending')
    expect(r.push(first, 1).status).toBe('duplicate')
    expect(statuses(rest.map((c) => r.push(c, 2))).at(-1)).toBe('complete')
    expect(r.push(first, 3).status).toBe('duplicate')
    // Finished means finished: other bytes under the id are not a conflict with a message now gone.
    expect(r.push(tampered(first, 20), 4).status).toBe('duplicate')
    expect(r.partialMessages).toBe(0)
  })

  it('rejects a message with PROTO_CHUNK_CONFLICT when one index arrives with other bytes, and a clean resend of the id still completes', () => {
    const { chunks, frame } = chunksOf(1000)
    const r = createReassembler(roomy)
    const [first, second] = chunks as [Envelope, Envelope]
    r.push(first, 0)
    const result = r.push(tampered(first, 20), 1)
    expect(result.status === 'rejected' && result.error.code).toBe('PROTO_CHUNK_CONFLICT')
    expect(r.partialMessages).toBe(0)
    // The resend starts afresh, from the very chunk the first attempt held.
    expect(r.push(first, 2).status).toBe('pending')
    expect(r.push(second, 2).status).toBe('pending')
    const last = chunks.map((c, i) => r.push(c, 3 + i)).at(-1)
    expect(last?.status).toBe('complete')
    expect(last?.status === 'complete' && Buffer.from(last.frame).equals(Buffer.from(frame))).toBe(true)
  })

  it('rejects with PROTO_CHUNK_CONFLICT when a chunk’s count, total or checksum differs from earlier ones', () => {
    const { chunks } = chunksOf(1000)
    const [first, second] = chunks as [Envelope, Envelope]
    for (const offset of [7, 11, 15]) {
      const r = createReassembler(roomy)
      r.push(first, 0)
      const result = r.push(tampered(second, offset), 1)
      expect(result.status === 'rejected' && result.error.code).toBe('PROTO_CHUNK_CONFLICT')
    }
  })

  it('rejects with PROTO_CHUNK_INTEGRITY when the rebuilt frame fails its CRC-32', () => {
    const { chunks } = chunksOf(1000)
    const r = createReassembler(roomy)
    // Flip one data bit of one chunk: every chunk agrees on the metadata, only the data is wrong.
    const results = chunks.map((c, i) => r.push(i === 1 ? tampered(c, 30) : c, i))
    const last = results.at(-1)
    expect(last?.status === 'rejected' && last.error.code).toBe('PROTO_CHUNK_INTEGRITY')
  })

  it('rejects with PROTO_CHUNK_INTEGRITY when chunks add up to another length than announced', () => {
    const { chunks } = chunksOf(1000)
    const r = createReassembler(roomy)
    const [first, ...rest] = chunks as [Envelope, ...Envelope[]]
    const shortFirst: Envelope = { ...first, payload: first.payload.subarray(0, first.payload.length - 1) }
    const results = [shortFirst, ...rest].map((c, i) => r.push(c, i))
    const last = results.at(-1)
    expect(last?.status === 'rejected' && last.error.code).toBe('PROTO_CHUNK_INTEGRITY')
  })

  it('evicts the oldest partial message when maxPartialMessages is hit, and reports it', () => {
    const r = createReassembler({ ...roomy, maxPartialMessages: 2 })
    const first = (n: number): Envelope => chunksOf(1000, { messageId: messageId(n) }).chunks[0] as Envelope
    expect(r.push(first(1), 0).evicted).toEqual([])
    expect(r.push(first(2), 1).evicted).toEqual([])
    const result = r.push(first(3), 2)
    expect(result.evicted).toEqual([
      expect.objectContaining({ messageId: messageId(1), reason: 'max-partial-messages', receivedChunks: 1 }),
    ])
    expect(r.partialMessages).toBe(2)
  })

  it('evicts the oldest partial messages when maxPartialBytes is hit, and reports them', () => {
    const { chunks: a } = chunksOf(1000, { messageId: messageId(1) })
    const { chunks: b } = chunksOf(1000, { messageId: messageId(2) })
    const r = createReassembler({ ...roomy, maxPartialBytes: 1100 })
    // All of message 1 but its last chunk fits the bound; the first chunk of message 2 tips it over.
    const early = a.slice(0, -1).map((c) => r.push(c, 0))
    expect(early.flatMap((x) => x.evicted)).toEqual([])
    expect(r.partialBytes + dataBytes(b[0])).toBeGreaterThan(1100)
    const result = r.push(b[0] as Envelope, 0)
    expect(result.evicted.map((e) => [e.messageId, e.reason])).toEqual([[messageId(1), 'max-partial-bytes']])
    expect(r.partialBytes).toBe(dataBytes(b[0]))
    expect(r.partialBytes).toBeLessThanOrEqual(1100)
  })

  it('PROTO_CHUNK_TOO_LARGE for a message that could never fit maxPartialBytes, leaving state untouched', () => {
    const { chunks } = chunksOf(1000)
    const r = createReassembler({ ...roomy, maxPartialBytes: 500 })
    expect(codeOf(() => r.push(chunks[0] as Envelope, 0))).toBe('ProtocolError:PROTO_CHUNK_TOO_LARGE')
    expect(r.partialMessages).toBe(0)
  })

  it('expires partial messages after ttlMs, on sweep and on the next push', () => {
    const r = createReassembler({ ...roomy, ttlMs: 100 })
    const a = chunksOf(1000, { messageId: messageId(1) }).chunks
    const b = chunksOf(1000, { messageId: messageId(2) }).chunks
    r.push(a[0] as Envelope, 0)
    r.push(b[0] as Envelope, 50)
    expect(r.sweep(99)).toEqual([])
    expect(r.sweep(100).map((e) => [e.messageId, e.reason])).toEqual([[messageId(1), 'expired']])
    expect(r.push(a[1] as Envelope, 160).evicted.map((e) => e.messageId)).toEqual([messageId(2)])
  })

  it('throws PROTO_WRONG_KIND for a non-chunk envelope', () => {
    expect(codeOf(() => createReassembler(roomy).push(sampleEnvelope(), 0))).toBe('ProtocolError:PROTO_WRONG_KIND')
  })

  it('PROTO_INVALID_OPTION for bounds that are not positive integers', () => {
    for (const bad of [
      { maxPartialMessages: 0 },
      { maxPartialBytes: -1 },
      { ttlMs: 1.5 },
      { maxFinishedMessages: 0 },
    ]) {
      expect(codeOf(() => createReassembler({ ...roomy, ...bad }))).toBe('ProtocolError:PROTO_INVALID_OPTION')
    }
  })

  it('fed random and mutated chunks, only returns results or throws ProtocolError, within its bounds', () => {
    const { chunks } = chunksOf(3000)
    const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 8000, ttlMs: 1000 })
    fc.assert(
      fc.property(
        fc.nat(chunks.length - 1),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 3 }),
        fc.nat(50),
        (i, edits, dt) => {
          let chunk = chunks[i] as Envelope
          for (const [at, mask] of edits) chunk = tampered(chunk, at % chunk.payload.length, mask)
          try {
            r.push(chunk, dt)
          } catch (error) {
            expect(isProtocolError(error)).toBe(true)
          }
          expect(r.partialMessages).toBeLessThanOrEqual(4)
          expect(r.partialBytes).toBeLessThanOrEqual(8000)
        },
      ),
      { numRuns: 300 },
    )
  })
})
