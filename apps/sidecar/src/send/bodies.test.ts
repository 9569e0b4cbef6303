import {
  bodyByteLength,
  bodyLengthFor,
  decodeBody,
  decodeChunk,
  decodeEnvelope,
  encodeEnvelope,
  isProtocolError,
  unpackBatch,
  type BatchHeader,
} from '@e2e-col/protocol'
import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { packNext } from './bodies.ts'

const DOC = randomUUID()
const SENDER = randomUUID()
const MAX = 2000

/** An update envelope whose frame is exactly `frameBytes` long. */
function frameOf(frameBytes: number): Uint8Array {
  // The payload's length prefix is a varint: shrink the payload until the whole frame fits.
  for (let payload = frameBytes; payload >= 0; payload--) {
    const frame = encodeEnvelope(envelope(payload))
    if (frame.byteLength === frameBytes) return frame
  }
  throw new Error(`no update frame of ${frameBytes} bytes`)
}
function envelope(payloadBytes: number) {
  return {
    kind: 'update' as const,
    flags: 0,
    docId: DOC,
    senderId: SENDER,
    messageId: randomBytes(16).toString('hex'),
    seq: 1,
    payload: new Uint8Array(payloadBytes).fill(7),
  }
}

/** The largest frame that fits one body of `MAX` bare. */
function largestBare(): number {
  let n = 100
  while (bodyLengthFor(n + 1) <= MAX) n += 1
  return n
}

function headers() {
  const made: BatchHeader[] = []
  const newHeader = (): BatchHeader => {
    const h = { docId: DOC, senderId: randomUUID(), messageId: randomBytes(16).toString('hex'), seq: 0 }
    made.push(h)
    return h
  }
  return { made, newHeader }
}

describe('packNext', () => {
  it('sends one frame bare, without asking for a batch header', () => {
    const frame = frameOf(300)
    const { made, newHeader } = headers()
    const packed = packNext([frame], MAX, newHeader)
    expect(packed.mode).toBe('single')
    expect(packed.taken).toBe(1)
    expect(packed.bodies).toHaveLength(1)
    expect(decodeBody(packed.bodies[0] ?? '')).toEqual(frame)
    expect(made).toHaveLength(0)
  })

  it('packs the longest prefix that fits one body into a batch under a fresh header', () => {
    const frames = Array.from({ length: 10 }, () => frameOf(400))
    const { made, newHeader } = headers()
    const packed = packNext(frames, MAX, newHeader)
    expect(packed.mode).toBe('batch')
    expect(packed.bodies).toHaveLength(1)
    const body = packed.bodies[0] ?? ''
    expect(bodyByteLength(body)).toBeLessThanOrEqual(MAX)
    const batch = decodeEnvelope(decodeBody(body))
    expect(batch.kind).toBe('batch')
    expect(made).toHaveLength(1)
    expect(batch.messageId).toBe(made[0]?.messageId)
    const inner = unpackBatch(batch)
    expect(packed.taken).toBe(inner.length)
    expect(packed.taken).toBeGreaterThanOrEqual(2)
    expect(packed.taken).toBeLessThan(10)
    expect(inner.map((e) => encodeEnvelope(e))).toEqual(frames.slice(0, packed.taken))
  })

  it('sends the first frame bare when the second does not fit beside it (no batch of one)', () => {
    const frames = [frameOf(1200), frameOf(1200)]
    const packed = packNext(frames, MAX, headers().newHeader)
    expect(packed).toEqual({ mode: 'single', taken: 1, bodies: [packed.bodies[0]] })
    expect(decodeBody(packed.bodies[0] ?? '')).toEqual(frames[0])
  })

  it('sends a frame that fits bare but not with the batch header bare', () => {
    const frames = [frameOf(largestBare()), frameOf(200)]
    const packed = packNext(frames, MAX, headers().newHeader)
    expect(packed.mode).toBe('single')
    expect(packed.taken).toBe(1)
    expect(bodyByteLength(packed.bodies[0] ?? '')).toBeLessThanOrEqual(MAX)
    expect(decodeBody(packed.bodies[0] ?? '')).toEqual(frames[0])
  })

  it('sends a frame whose body is exactly the boundary bare and one byte more as chunks', () => {
    const exact = frameOf(largestBare())
    const boundary = bodyLengthFor(exact.byteLength) // a whole base64 quantum: the tightest boundary
    expect(packNext([exact], boundary, headers().newHeader).mode).toBe('single')

    const over = frameOf(largestBare() + 1)
    const packed = packNext([over, frameOf(100)], MAX, headers().newHeader)
    expect(packed.mode).toBe('chunked')
    expect(packed.taken).toBe(1)
    expect(packed.bodies.length).toBeGreaterThanOrEqual(2)
    for (const body of packed.bodies) expect(bodyByteLength(body)).toBeLessThanOrEqual(MAX)
    const parts = packed.bodies.map((b) => decodeChunk(decodeEnvelope(decodeBody(b))))
    const whole = new Uint8Array(parts.reduce((n, p) => n + p.data.byteLength, 0))
    let at = 0
    for (const p of parts) {
      whole.set(p.data, at)
      at += p.data.byteLength
    }
    expect(whole).toEqual(over)
  })

  it('refuses an empty list', () => {
    expect(() => packNext([], MAX, headers().newHeader)).toThrow(RangeError)
    expect(() => packNext([], MAX, headers().newHeader)).toThrow('packNext needs at least one frame')
  })

  it('passes on a batch error other than "too large" (a bad header is a bug, not a reason to send bare)', () => {
    const frames = [frameOf(100), frameOf(100)]
    let error: unknown
    try {
      packNext(frames, MAX, () => ({ docId: 'not a uuid', senderId: SENDER, messageId: 'x', seq: 0 }))
    } catch (e) {
      error = e
    }
    expect(isProtocolError(error)).toBe(true)
    expect(isProtocolError(error) && error.code).not.toBe('PROTO_BATCH_TOO_LARGE')
  })
})
