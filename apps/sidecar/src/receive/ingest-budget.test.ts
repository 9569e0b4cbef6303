/**
 * The bounds of docs/sidecar.md §4.6 on what one body, and the set of members heard, can cost: at
 * most one sync-request taken per body, at most `maxFrameBytes` inflated per body, bodies over
 * the receive bound dropped unread, deflated envelopes only when reading them is on, and at most
 * 256 sources remembered (the least recently heard forgotten).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { encodeBody, encodeEnvelope, FLAGS, packBatch, type Envelope, type Kind } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import type { IngestOptions } from './ingest.ts'
import { FIXTURE_GROUP as GROUP, ingestFixture } from './ingest-fixture.ts'

const DOC = randomUUID()
const SENDER = randomUUID()

const envelope = (kind: Kind, payload: Uint8Array, flags = 0): Envelope => ({
  kind,
  flags,
  docId: DOC,
  senderId: SENDER,
  messageId: randomBytes(16).toString('hex'),
  seq: 1,
  payload,
})
const batchBody = (entries: readonly Envelope[]): string =>
  encodeBody(
    packBatch(
      { docId: DOC, senderId: SENDER, messageId: randomBytes(16).toString('hex'), seq: 2 },
      entries.map((e) => encodeEnvelope(e)),
      { maxBodyBytes: 1 << 22 },
    ).frame,
  )

const body = (e: Envelope): string => encodeBody(encodeEnvelope(e))

function setup(extra: Partial<IngestOptions> = {}) {
  const { ingest, delivered, by } = ingestFixture(DOC, {
    maxFrameBytes: 64 * 1024,
    reassembly: { maxPartialMessages: 8, maxPartialBytes: 1 << 20, ttlMs: 60_000 },
    ...extra,
  })
  return { ingest, delivered, dropped: () => by('receivedDropped', 'reason') }
}

describe('what one body may cost', () => {
  it('takes at most one sync-request per body, and one more in the next body', async () => {
    const s = setup()
    const asks = [0, 1, 2].map((i) => envelope('sync-request', Uint8Array.of(i)))
    const update = envelope('update', new Uint8Array(10))
    s.ingest.handle(GROUP, batchBody([asks[0] as Envelope, update, asks[1] as Envelope]), { source: 'a' })
    expect(s.delivered).toEqual([asks[0], update])
    expect(await s.dropped()).toEqual({ 'body-budget': 1 })
    s.ingest.handle(GROUP, batchBody([asks[2] as Envelope]), { source: 'a' })
    expect(s.delivered).toEqual([asks[0], update, asks[2]])
  })

  it('inflates at most one frame of payload per body; the next body has its own budget', async () => {
    const plain = new Uint8Array(40 * 1024).fill(7) // each inflates to 40 KiB: two pass the 64 KiB budget
    const deflated = () => envelope('update', new Uint8Array(deflateRawSync(plain)), FLAGS.deflated)
    const s = setup()
    const [a, b, c] = [deflated(), deflated(), deflated()]
    s.ingest.handle(GROUP, batchBody([a as Envelope, b as Envelope]), { source: 'a' })
    expect(s.delivered.map((e) => e.messageId)).toEqual([a?.messageId])
    // The second was cut short by what was left (24 KiB), which it would pass: dropped too large.
    expect(await s.dropped()).toEqual({ 'inflate-too-large': 1 })
    s.ingest.handle(GROUP, batchBody([c as Envelope]), { source: 'a' })
    expect(s.delivered.map((e) => e.messageId)).toEqual([a?.messageId, c?.messageId])
  })

  it('drops the deflated envelopes left in a body once its budget is spent', async () => {
    const s = setup()
    const plain = new Uint8Array(32 * 1024).fill(1) // exactly half the budget each
    const deflated = () => envelope('update', new Uint8Array(deflateRawSync(plain)), FLAGS.deflated)
    const three = [deflated(), deflated(), deflated()]
    s.ingest.handle(GROUP, batchBody(three), { source: 'a' })
    expect(s.delivered).toHaveLength(2)
    expect(await s.dropped()).toEqual({ 'body-budget': 1 })
  })

  it('drops a deflated envelope when reading them is off', async () => {
    const s = setup({ readDeflate: false })
    s.ingest.handle(
      GROUP,
      encodeBody(
        encodeEnvelope(envelope('update', new Uint8Array(deflateRawSync(new Uint8Array(100))), FLAGS.deflated)),
      ),
      { source: 'a' },
    )
    expect(s.delivered).toEqual([])
    expect(await s.dropped()).toEqual({ 'unsupported-flag': 1 })
  })

  it('reads a body past the protocol default (1 MiB) when the receive bound allows it', async () => {
    const env = envelope('update', new Uint8Array(randomBytes(800 * 1024)))
    const text = body(env)
    expect(text.length).toBeGreaterThan(1024 * 1024)
    const s = setup({ maxFrameBytes: 1 << 20, maxBodyBytes: 2 * 1024 * 1024 })
    s.ingest.handle(GROUP, text, { source: 'a' })
    expect(s.delivered.map((e) => e.messageId)).toEqual([env.messageId])
    // Compared as a buffer: an element-by-element comparison of 800 KiB is slow.
    expect(Buffer.from(s.delivered[0]!.payload).equals(env.payload)).toBe(true)
    expect(await s.dropped()).toEqual({})
  })

  it('drops a body over the receive bound unread, and reads one of exactly the bound', async () => {
    const text = encodeBody(encodeEnvelope(envelope('update', new Uint8Array(300))))
    const at = setup({ maxBodyBytes: text.length })
    at.ingest.handle(GROUP, text, { source: 'a' })
    expect(at.delivered).toHaveLength(1)
    const over = setup({ maxBodyBytes: text.length - 1 })
    over.ingest.handle(GROUP, text, { source: 'a' })
    expect(over.delivered).toEqual([])
    expect(await over.dropped()).toEqual({ 'body-too-large': 1 })
  })
})

describe('sources remembered', () => {
  it('forgets the least recently heard of more than 256 sources, and keeps one heard again', () => {
    const s = setup()
    const first = envelope('update', new Uint8Array(10))
    const kept = envelope('update', new Uint8Array(10))
    s.ingest.handle(GROUP, body(first), { source: 'first' })
    s.ingest.handle(GROUP, body(kept), { source: 'kept' })
    for (let i = 0; i < 255; i++) {
      s.ingest.handle(GROUP, body(envelope('update', new Uint8Array(10))), { source: `member-${i}` })
      if (i === 200) s.ingest.handle(GROUP, body(kept), { source: 'kept' }) // heard again: most recent
    }
    // 257 sources heard: `first` is forgotten, so its copy is new again; `kept` is still known.
    const before = s.delivered.length
    s.ingest.handle(GROUP, body(first), { source: 'first' })
    s.ingest.handle(GROUP, body(kept), { source: 'kept' })
    expect(s.delivered.slice(before)).toEqual([first])
    // Our own account is never forgotten.
    const own = envelope('update', new Uint8Array(10))
    s.ingest.markSent(DOC, own.senderId, own.messageId)
    for (let i = 0; i < 300; i++)
      s.ingest.handle(GROUP, body(envelope('update', new Uint8Array(10))), { source: `later-${i}` })
    s.ingest.handle(GROUP, body(own), { source: 'self' })
    expect(s.delivered.at(-1)?.messageId).not.toBe(own.messageId)
  })
})
