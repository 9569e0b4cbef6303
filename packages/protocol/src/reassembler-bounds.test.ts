/**
 * The reassembler's bounds at their edges, and the chunk conflicts a later check would not catch.
 */
import { describe, expect, it } from 'vitest'
import { failure, patternBytes, sampleEnvelope } from '../test/fixtures.ts'
import type { Envelope } from './envelope.ts'
import { createReassembler, type Reassembler, type ReassemblerOptions } from './reassembler.ts'

const roomy: ReassemblerOptions = { maxPartialMessages: 16, maxPartialBytes: 1 << 20, ttlMs: 60_000 }

/** A hand-made chunk envelope: metadata as given, `data` after it. */
function chunk(
  meta: { index: number; count: number; total: number; crc?: number },
  data: Uint8Array,
  envelope: Partial<Envelope> = {},
): Envelope {
  const payload = new Uint8Array(16 + data.length)
  const view = new DataView(payload.buffer)
  view.setUint32(0, meta.index)
  view.setUint32(4, meta.count)
  view.setUint32(8, meta.total)
  view.setUint32(12, meta.crc ?? 0)
  payload.set(data, 16)
  return sampleEnvelope({ kind: 'chunk', ...envelope, payload })
}
const id = (n: number): string => n.toString(16).padStart(32, '0')

/** Starts a message of `total` bytes, then one of `total + 1` under another id: the status, the refusal. */
function pushAtEdge(r: Reassembler, total: number, dataBytes: number): [string, string] {
  const first = r.push(chunk({ index: 0, count: 2, total }, patternBytes(dataBytes)), 0).status
  const next = failure(() =>
    r.push(chunk({ index: 0, count: 2, total: total + 1 }, patternBytes(dataBytes), { messageId: id(2) }), 0),
  )
  return [first, next]
}

describe('reassembler bounds at their edges', () => {
  it('accepts a message of exactly maxPartialBytes and refuses one byte more', () => {
    const r = createReassembler({ ...roomy, maxPartialBytes: 1000 })
    expect(pushAtEdge(r, 1000, 500)).toEqual([
      'pending',
      'PROTO_CHUNK_TOO_LARGE: message of 1001 bytes exceeds maxPartialBytes 1000',
    ])
  })

  it('accepts a message of maxPayloadBytes plus the largest header (66 bytes) and refuses one byte more', () => {
    const r = createReassembler({ ...roomy, maxPayloadBytes: 100 })
    expect(pushAtEdge(r, 166, 80)).toEqual([
      'pending',
      'PROTO_CHUNK_TOO_LARGE: message of 167 bytes exceeds maxPayloadBytes 100 plus the header',
    ])
    expect(r.partialMessages).toBe(1)
  })

  it('keeps exactly maxPartialMessages open without evicting, and evicts the oldest for one more', () => {
    const r = createReassembler({ ...roomy, maxPartialMessages: 2 })
    expect(r.push(chunk({ index: 0, count: 2, total: 20 }, patternBytes(10), { messageId: id(1) }), 0).evicted).toEqual(
      [],
    )
    expect(r.push(chunk({ index: 0, count: 2, total: 20 }, patternBytes(10), { messageId: id(2) }), 0).evicted).toEqual(
      [],
    )
    const third = r.push(chunk({ index: 0, count: 2, total: 20 }, patternBytes(10), { messageId: id(3) }), 0)
    expect(third.evicted.map((e) => [e.messageId, e.reason])).toEqual([[id(1), 'max-partial-messages']])
  })

  it('holds exactly maxPartialBytes of data without evicting, and evicts for one byte more', () => {
    const r = createReassembler({ ...roomy, maxPartialBytes: 100 })
    expect(
      r.push(chunk({ index: 0, count: 2, total: 100 }, patternBytes(60), { messageId: id(1) }), 0).evicted,
    ).toEqual([])
    expect(
      r.push(chunk({ index: 0, count: 2, total: 100 }, patternBytes(40), { messageId: id(2) }), 0).evicted,
    ).toEqual([])
    expect(r.partialBytes).toBe(100)
    const more = r.push(chunk({ index: 0, count: 2, total: 100 }, patternBytes(1), { messageId: id(3) }), 0)
    expect(more.evicted.map((e) => [e.messageId, e.reason])).toEqual([[id(1), 'max-partial-bytes']])
    expect(r.partialBytes).toBe(41)
  })
})

describe('conflicting chunks of one message', () => {
  it('rejects a repeated index whose data extends the first copy (not a duplicate)', () => {
    const r = createReassembler(roomy)
    const data = patternBytes(10)
    r.push(chunk({ index: 0, count: 3, total: 30 }, data), 0)
    const longer = Uint8Array.from([...data, 7])
    const result = r.push(chunk({ index: 0, count: 3, total: 30 }, longer), 0)
    expect(result.status).toBe('rejected')
    if (result.status === 'rejected') expect(result.error.code).toBe('PROTO_CHUNK_CONFLICT')
  })

  it.each([
    ['seq', { seq: 8 }],
    ['flags', { flags: 1 }],
  ] as const)('rejects a later chunk whose %s differs, at once', (_, change) => {
    const r = createReassembler(roomy)
    r.push(chunk({ index: 0, count: 3, total: 30 }, patternBytes(10)), 0)
    const result = r.push(chunk({ index: 1, count: 3, total: 30 }, patternBytes(10), change), 0)
    expect(result.status).toBe('rejected')
    if (result.status === 'rejected') {
      expect(result.error.code).toBe('PROTO_CHUNK_CONFLICT')
      expect(result.error.message).toBe('chunk metadata differs from earlier chunks of the message')
    }
  })

  it('rejects chunks that carry more bytes than the total length, saying so', () => {
    const r = createReassembler(roomy)
    r.push(chunk({ index: 0, count: 3, total: 10 }, patternBytes(6)), 0)
    const result = r.push(chunk({ index: 1, count: 3, total: 10 }, patternBytes(6)), 0)
    expect(result.status).toBe('rejected')
    if (result.status === 'rejected') {
      expect(result.error.code).toBe('PROTO_CHUNK_INTEGRITY')
      expect(result.error.message).toBe('chunks carry more bytes than the total length')
    }
    expect(r.partialMessages).toBe(0)
  })
})
