/**
 * Chunks of messages that share a message id but not a sender or document, pushed alternately, and
 * the byte bound evicting no more than it must.
 */
import { describe, expect, it } from 'vitest'
import { DOC_ID, patternBytes, sampleEnvelope, SENDER_ID } from '../test/fixtures.ts'
import { chunkFrame } from './chunking.ts'
import { decodeEnvelope, encodeEnvelope, type Envelope } from './envelope.ts'
import { createReassembler } from './reassembler.ts'

const OTHER = '9b2f1c4e-0d3a-4b5c-8e6f-1a2b3c4d5e6f'
const roomy = { maxPartialMessages: 16, maxPartialBytes: 1 << 20, ttlMs: 60_000 }

function chunksOf(overrides: Partial<Envelope>, seed: number): Envelope[] {
  const frame = encodeEnvelope(sampleEnvelope({ ...overrides, payload: patternBytes(200, seed) }))
  return chunkFrame(frame, { maxBodyBytes: 200 }).map((c) => decodeEnvelope(c))
}

describe('reassembler, interleaved messages sharing a message id', () => {
  for (const [what, other] of [
    ['sender', { senderId: OTHER }],
    ['document', { docId: OTHER }],
  ] as const) {
    it(`keeps two messages of another ${what} apart and completes both`, () => {
      const a = chunksOf({ docId: DOC_ID, senderId: SENDER_ID }, 1)
      const b = chunksOf({ docId: DOC_ID, senderId: SENDER_ID, ...(other as Partial<Envelope>) }, 2)
      expect(a.length).toBe(b.length)
      const r = createReassembler(roomy)
      const done: string[] = []
      for (let i = 0; i < a.length; i++) {
        for (const [name, c] of [
          ['a', a[i]],
          ['b', b[i]],
        ] as const) {
          if (c === undefined) throw new Error('missing chunk')
          const result = r.push(c, 0)
          if (result.status === 'complete') {
            done.push(name)
            expect(result.envelope.payload).toEqual(patternBytes(200, name === 'a' ? 1 : 2))
          }
        }
      }
      expect(done).toEqual(['a', 'b'])
    })
  }
})

/** A hand-made chunk of a 1000-byte, two-chunk message. */
const part = (messageId: string, index: number, data: Uint8Array): Envelope => {
  const payload = new Uint8Array(16 + data.length)
  const view = new DataView(payload.buffer)
  view.setUint32(0, index)
  view.setUint32(4, 2)
  view.setUint32(8, 1000)
  payload.set(data, 16)
  return sampleEnvelope({ kind: 'chunk', messageId, payload })
}
const id = (n: number): string => n.toString(16).padStart(32, '0')

describe('reassembler byte bound', () => {
  it('evicts the oldest partials only until the bytes held are back at maxPartialBytes', () => {
    const r = createReassembler({ ...roomy, maxPartialBytes: 1000 })
    expect(r.push(part(id(1), 0, patternBytes(1)), 0).status).toBe('pending')
    expect(r.push(part(id(2), 0, patternBytes(500)), 0).status).toBe('pending')
    // 1 + 500 + 500 = 1001 bytes: evicting the 1-byte partial brings it back to exactly 1000.
    const third = r.push(part(id(3), 0, patternBytes(500)), 0)
    expect(third.evicted.map((e) => e.messageId)).toEqual([id(1)])
    expect(r.push(part(id(2), 1, patternBytes(500, 9)), 0).status).not.toBe('pending')
  })
})
