import { randomBytes, randomUUID } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { bodyLengthFor, decodeEnvelope, encodeEnvelope, FLAGS, type Envelope, type Kind } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import { inflateFrame } from '../receive/inflate-frame.ts'
import { deflateFrame } from './deflate-frame.ts'

const text = (n: number): Uint8Array =>
  new TextEncoder().encode('the quick brown fox jumps over the lazy dog; '.repeat(Math.ceil(n / 45)).slice(0, n))
const envelopeOf = (payload: Uint8Array, kind: Kind = 'update', flags = 0): Envelope => ({
  kind,
  flags,
  docId: randomUUID(),
  senderId: randomUUID(),
  messageId: randomBytes(16).toString('hex'),
  seq: 3,
  payload,
})
const frameOf = (payload: Uint8Array, kind: Kind = 'update', flags = 0): Uint8Array =>
  encodeEnvelope(envelopeOf(payload, kind, flags))

describe('deflating large envelopes for Signal', () => {
  it('deflates a compressible update that needs chunks, and inflating restores the very frame', async () => {
    const frame = frameOf(text(20_000), 'update', FLAGS.ackRequested)
    const sent = await deflateFrame(frame, 2000)
    expect(sent.byteLength).toBeLessThan(frame.byteLength / 4)
    const env = decodeEnvelope(sent)
    expect(env.flags).toBe(FLAGS.ackRequested | FLAGS.deflated)
    const back = inflateFrame(env, 1 << 20)
    expect(back.ok && Buffer.from(back.frame).equals(Buffer.from(frame))).toBe(true)
  })

  it.each(['snapshot', 'sync-response'] as const)('deflates a large %s too', async (kind) => {
    const sent = await deflateFrame(frameOf(text(10_000), kind), 2000)
    expect(decodeEnvelope(sent).flags & FLAGS.deflated).toBe(FLAGS.deflated)
  })

  it('leaves a frame that fits one body as it is (typing stays one small send)', async () => {
    const frame = frameOf(text(1000))
    expect(await deflateFrame(frame, 2000)).toBe(frame)
  })

  it('keeps the original when deflate would not make it smaller (random bytes)', async () => {
    const frame = frameOf(new Uint8Array(randomBytes(10_000)))
    expect(await deflateFrame(frame, 2000)).toBe(frame)
  })

  it('leaves kinds that are not Yjs updates, and frames already deflated, alone', async () => {
    const awareness = frameOf(text(10_000), 'awareness')
    expect(await deflateFrame(awareness, 2000)).toBe(awareness)
    const already = frameOf(new Uint8Array(deflateRawSync(text(30_000))), 'update', FLAGS.deflated)
    expect(await deflateFrame(already, 300)).toBe(already)
  })
})

const deflated = (payload: Uint8Array): Envelope => envelopeOf(payload, 'update', FLAGS.deflated)

describe('inflating what arrives from Signal', () => {
  it('refuses a payload that would inflate beyond the frame bound (a deflate bomb)', () => {
    const bomb = new Uint8Array(deflateRawSync(new Uint8Array(64 * 1024 * 1024)))
    expect(bomb.byteLength).toBeLessThan(100_000)
    expect(inflateFrame(deflated(bomb), 2 * 1024 * 1024)).toEqual({ ok: false, reason: 'inflate-too-large' })
  })

  it('refuses a payload that is not DEFLATE data', () => {
    expect(inflateFrame(deflated(Uint8Array.of(1, 2, 3, 4, 5)), 1 << 20)).toEqual({
      ok: false,
      reason: 'inflate-failed',
    })
  })

  it('clears the flag and keeps every other field', () => {
    const env = { ...deflated(new Uint8Array(deflateRawSync(text(500)))), flags: FLAGS.deflated | FLAGS.retransmit }
    const r = inflateFrame(env, 1 << 20)
    expect(r.ok && r.envelope).toEqual({ ...env, flags: FLAGS.retransmit, payload: text(500) })
  })
})

describe('deflating: the edges', () => {
  it('leaves a frame whose body is exactly the boundary as it is', async () => {
    const frame = frameOf(text(3000))
    expect(await deflateFrame(frame, bodyLengthFor(frame.byteLength))).toBe(frame)
    expect(await deflateFrame(frame, bodyLengthFor(frame.byteLength) - 1)).not.toBe(frame)
  })

  it('never deflates a frame flagged deflated again, even when its payload would shrink', async () => {
    // A stored (level 0) DEFLATE stream of text: valid, flagged, and still compressible.
    const stored = frameOf(new Uint8Array(deflateRawSync(text(30_000), { level: 0 })), 'update', FLAGS.deflated)
    expect(await deflateFrame(stored, 2000)).toBe(stored)
  })

  it('deflates a frame larger than the default payload bound of the decoder (16 MiB)', async () => {
    const frame = frameOf(text(17 * 1024 * 1024))
    const sent = await deflateFrame(frame, 2000)
    expect(decodeEnvelope(sent, { maxPayloadBytes: 1 << 20 }).flags & FLAGS.deflated).toBe(FLAGS.deflated)
  })
})
