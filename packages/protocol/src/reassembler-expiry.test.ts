import { describe, expect, it } from 'vitest'
import { patternBytes, sampleEnvelope } from '../test/fixtures.ts'
import { chunkFrame } from './chunking.ts'
import { decodeEnvelope, encodeEnvelope, type Envelope } from './envelope.ts'
import { createReassembler } from './reassembler.ts'

const TTL = 100

function chunksOf(messageId: string): Envelope[] {
  const frame = encodeEnvelope(sampleEnvelope({ messageId, payload: patternBytes(600) }))
  return chunkFrame(frame, { maxBodyBytes: 300 }).map((c) => decodeEnvelope(c))
}

const id = (n: number): string => n.toString(16).padStart(32, '0')

describe('Reassembler expiry', () => {
  it('evicts by first-chunk age, oldest first, on the push that finds it expired (and not one millisecond earlier)', () => {
    const r = createReassembler({ maxPartialMessages: 8, maxPartialBytes: 1 << 20, ttlMs: TTL })
    const [a0] = chunksOf(id(1))
    const [b0] = chunksOf(id(2))
    const [c0] = chunksOf(id(3))
    if (a0 === undefined || b0 === undefined || c0 === undefined) throw new Error('no chunks')
    r.push(a0, 0)
    r.push(b0, 40)
    expect(r.push(c0, TTL - 1).evicted).toEqual([])
    expect(r.push(c0, TTL).evicted.map((e) => [e.messageId, e.reason])).toEqual([[id(1), 'expired']])
    expect(r.push(c0, 40 + TTL).evicted.map((e) => e.messageId)).toEqual([id(2)])
    expect(r.partialMessages).toBe(1)
  })

  it('looks at the new oldest partial after the oldest one completes, whatever its first-chunk time', () => {
    const r = createReassembler({ maxPartialMessages: 8, maxPartialBytes: 1 << 20, ttlMs: TTL })
    const a = chunksOf(id(1))
    const [b0] = chunksOf(id(2))
    const [c0] = chunksOf(id(3))
    if (b0 === undefined || c0 === undefined || a.length < 2) throw new Error('no chunks')
    r.push(a[0] as Envelope, 100)
    // A clock that stepped back: b's first chunk is older than a's, though it arrived later.
    r.push(b0, 50)
    r.push(c0, 100)
    for (const chunk of a.slice(1)) r.push(chunk, 100)
    // a completed and left; b is now the oldest and is expired at 50 + TTL.
    expect(r.push(c0, 50 + TTL).evicted.map((e) => e.messageId)).toEqual([id(2)])
  })
})
