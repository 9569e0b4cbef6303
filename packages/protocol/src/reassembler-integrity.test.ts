/**
 * The reassembler's promises that a passing CRC cannot cover: the rebuilt frame's header must be
 * the header its chunks carried, and the frames granted up front stay within maxPartialBytes (so
 * the memory held stays under twice that bound however many messages are open).
 */
import { describe, expect, it } from 'vitest'
import { patternBytes, sampleEnvelope } from '../test/fixtures.ts'
import { encodeEnvelope, type Envelope } from './envelope.ts'
import { crc32 } from './crc32.ts'
import { FLAGS, type Kind } from './kinds.ts'
import { SLAB_BYTES } from './piece-store.ts'
import { createReassembler, type PushResult } from './reassembler.ts'

const roomy = { maxPartialMessages: 16, maxPartialBytes: 1 << 24, ttlMs: 60_000 }

/**
 * Chunk envelopes carrying `inner`'s frame under the header of sampleEnvelope(`outer`), built by
 * hand (chunkFrame refuses local-only and chunk kinds): lengths and CRC-32 are right, so only the
 * header check can tell.
 */
function relabelled(inner: Partial<Envelope>, outer: Partial<Envelope>): Envelope[] {
  const frame = encodeEnvelope(sampleEnvelope({ payload: patternBytes(1200, 3), ...inner }))
  const count = 4
  const size = Math.ceil(frame.length / count)
  return Array.from({ length: count }, (_, index) => {
    const data = frame.subarray(index * size, (index + 1) * size)
    const payload = new Uint8Array(16 + data.length)
    const meta = new DataView(payload.buffer)
    meta.setUint32(0, index)
    meta.setUint32(4, count)
    meta.setUint32(8, frame.length)
    meta.setUint32(12, crc32(frame))
    payload.set(data, 16)
    return sampleEnvelope({ ...outer, kind: 'chunk', payload })
  })
}

function last(chunks: readonly Envelope[]): PushResult {
  const r = createReassembler(roomy)
  let result: PushResult | undefined
  for (const c of chunks) result = r.push(c, 0)
  if (result === undefined) throw new Error('no chunks')
  return result
}

describe('a reassembled frame must match its chunks', () => {
  it('completes when the rebuilt header is the chunks’ header (the control case)', () => {
    expect(last(relabelled({}, {})).status).toBe('complete')
  })

  const mismatches: [string, Partial<Envelope>][] = [
    ['document', { docId: '1f8fad5b-d9cb-469f-a165-70867728950e' }],
    ['sender', { senderId: '8c9e6679-7425-40de-944b-e07fc1f90ae7' }],
    ['message id', { messageId: 'ff112233445566778899aabbccddeeff' }],
    ['seq', { seq: 8 }],
    ['flags', { flags: FLAGS.ackRequested }],
  ]
  it.each(mismatches)('rejects with PROTO_CHUNK_INTEGRITY when the rebuilt frame names another %s', (_, outer) => {
    const result = last(relabelled({}, outer))
    expect(result.status).toBe('rejected')
    if (result.status === 'rejected') {
      expect(result.error.code).toBe('PROTO_CHUNK_INTEGRITY')
      expect(result.error.message).toContain('does not match its chunks')
    }
  })

  it.each<Kind>(['chunk', 'ack', 'error'])(
    'rejects a rebuilt %s envelope (a chunk inside chunks, a local-only kind)',
    (kind) => {
      const result = last(
        relabelled({ kind, payload: kind === 'chunk' ? patternBytes(1200, 4) : new Uint8Array(0) }, {}),
      )
      expect(result.status).toBe('rejected')
      if (result.status === 'rejected') expect(result.error.code).toBe('PROTO_CHUNK_INTEGRITY')
    },
  )
})

/** The first chunk of a message of `totalLength` bytes: 300 bytes of data, built by hand. */
function firstChunk(n: number, totalLength: number): Envelope {
  const payload = new Uint8Array(16 + 300)
  const meta = new DataView(payload.buffer)
  meta.setUint32(0, 0)
  meta.setUint32(4, Math.ceil(totalLength / 300))
  meta.setUint32(8, totalLength)
  meta.setUint32(12, n)
  payload.set(patternBytes(300, n), 16)
  return sampleEnvelope({ kind: 'chunk', messageId: (n + 1).toString(16).padStart(32, '0'), payload })
}

describe('memory held by open messages', () => {
  it('stays under twice maxPartialBytes however many messages open with one chunk (frames granted only within the bound)', () => {
    // The sidecar's ratio: 64 MiB and 64 messages; here 4 MiB and 40 messages of almost 4 MiB each.
    // The data held is small (no eviction), but granting every frame would allocate 160 MiB.
    const maxPartialBytes = 4 << 20
    const messages = 40
    const firsts = Array.from({ length: messages }, (_, n) => firstChunk(n, maxPartialBytes - 200))
    const r = createReassembler({ maxPartialMessages: 64, maxPartialBytes, ttlMs: 60_000 })
    const before = process.memoryUsage().arrayBuffers
    for (const c of firsts) expect(r.push(c, 0)).toMatchObject({ status: 'pending', evicted: [] })
    const grown = process.memoryUsage().arrayBuffers - before
    expect(r.partialMessages).toBe(messages)
    expect(r.partialBytes).toBe(messages * 300)
    // Held: one granted frame (under maxPartialBytes) and one 64 KiB slab for each other message.
    expect(grown).toBeLessThan(maxPartialBytes + messages * SLAB_BYTES + (1 << 20))
    expect(grown).toBeLessThan(2 * maxPartialBytes)
  })
})
