/**
 * Every way the receive path drops a body, each counted under its own reason, and the two paths
 * that reach the reassembler (a bare chunk, a chunk inside a batch). One body from a member can
 * cost at most one decode and one reassembly step; what it cannot be, it says in a metric.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import {
  chunkFrame,
  decodeEnvelope,
  encodeBody,
  encodeEnvelope,
  packBatch,
  type Envelope,
  type Kind,
} from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import type { IngestOptions } from './ingest.ts'
import { FIXTURE_GROUP as GROUP, ingestFixture, randomEnvelope } from './ingest-fixture.ts'

const DOC = randomUUID()
const OTHER_DOC = randomUUID()
const SENDER = randomUUID()

const envelope = (payloadBytes: number, kind: Kind = 'update', docId = DOC): Envelope =>
  randomEnvelope(docId, SENDER, payloadBytes, kind)
const bodyOf = (e: Envelope): string => encodeBody(encodeEnvelope(e))
const batchOf = (entries: readonly Envelope[], docId = DOC): string =>
  encodeBody(
    packBatch(
      { docId, senderId: SENDER, messageId: randomBytes(16).toString('hex'), seq: 2 },
      entries.map((e) => encodeEnvelope(e)),
      { maxBodyBytes: 1 << 20 },
    ).frame,
  )
const chunksOf = (e: Envelope, maxBodyBytes = 600): Envelope[] =>
  chunkFrame(encodeEnvelope(e), { maxBodyBytes }).map((c) => decodeEnvelope(c))

function setup(extra: Partial<IngestOptions> = {}) {
  const { ingest, delivered, metrics, by } = ingestFixture(DOC, extra)
  const chunks = async (): Promise<number> => (await metrics.chunksReceived.get()).values[0]?.value ?? 0
  return { ingest, delivered, by, chunks }
}

describe('what the receive path drops, and why', () => {
  it('counts ack and error envelopes as local-only kinds, each of them', async () => {
    const { ingest, delivered, by } = setup()
    ingest.handle(GROUP, bodyOf(envelope(0, 'ack')))
    ingest.handle(GROUP, bodyOf(envelope(0, 'error')))
    ingest.handle(GROUP, bodyOf(envelope(3))) // a good one, delivered
    expect(delivered).toHaveLength(1)
    expect(await by('receivedDropped', 'reason')).toEqual({ 'local-only-kind': 2 })
  })

  it('drops a kind browsers never send (a batch inside a chunked message) as unexpected', async () => {
    const batch = decodeEnvelope(
      packBatch(
        { docId: DOC, senderId: SENDER, messageId: randomBytes(16).toString('hex'), seq: 3 },
        [encodeEnvelope(envelope(900)), encodeEnvelope(envelope(900))],
        { maxBodyBytes: 1 << 20 },
      ).frame,
    )
    const { ingest, delivered, by } = setup()
    for (const c of chunksOf(batch)) ingest.handle(GROUP, bodyOf(c))
    expect(delivered).toHaveLength(0)
    expect(await by('receivedDropped', 'reason')).toEqual({ 'unexpected-kind': 1 })
  })

  it('drops an entry of a batch that names another document, delivering the rest', async () => {
    const good = envelope(5)
    const { ingest, delivered, by } = setup()
    ingest.handle(GROUP, batchOf([envelope(5, 'update', OTHER_DOC), good]))
    expect(delivered.map((e) => e.messageId)).toEqual([good.messageId])
    expect(await by('receivedDropped', 'reason')).toEqual({ 'wrong-document': 1 })
  })

  it('drops a chunk of another document on sight: it never reaches the reassembler', async () => {
    const { ingest, delivered, by, chunks } = setup()
    const [first] = chunksOf(envelope(3000, 'update', OTHER_DOC))
    ingest.handle(GROUP, bodyOf(first as Envelope))
    expect(delivered).toHaveLength(0)
    expect(await chunks()).toBe(0)
    expect(await by('receivedDropped', 'reason')).toEqual({ 'wrong-document': 1 })
  })

  it('drops a malformed chunk and a conflicting one as invalid chunks', async () => {
    const { ingest, delivered, by } = setup()
    const [first, second] = chunksOf(envelope(3000))
    if (first === undefined || second === undefined) throw new Error('expected chunks')
    // Count 1 in the chunk metadata: malformed (the reassembler throws).
    const malformed = first.payload.slice()
    malformed.set([0, 0, 0, 1], 4)
    ingest.handle(GROUP, bodyOf({ ...first, payload: malformed }))
    // The same index twice with other bytes: a conflict (the reassembler rejects the message).
    ingest.handle(GROUP, bodyOf(second))
    const other = second.payload.slice()
    other[20] = (other[20] ?? 0) ^ 1
    ingest.handle(GROUP, bodyOf({ ...second, payload: other }))
    expect(delivered).toHaveLength(0)
    expect(await by('receivedDropped', 'reason')).toEqual({ 'invalid-chunk': 2 })
  })

  it('drops a batch that does not unpack as an invalid batch', async () => {
    const { ingest, delivered, by } = setup()
    const bad = { ...envelope(0, 'batch'), payload: Uint8Array.of(2, 5, 1, 2, 3) } // two entries announced, one truncated
    ingest.handle(GROUP, bodyOf(bad))
    expect(delivered).toHaveLength(0)
    expect(await by('receivedDropped', 'reason')).toEqual({ 'invalid-batch': 1 })
  })

  it('refuses a frame over maxFrameBytes as an invalid body, without throwing', async () => {
    const { ingest, delivered, by } = setup({ maxFrameBytes: 1000 })
    expect(() => ingest.handle(GROUP, bodyOf(envelope(1500)))).not.toThrow()
    expect(delivered).toHaveLength(0)
    expect(await by('receivedDropped', 'reason')).toEqual({ 'invalid-body': 1 })
  })

  it('reassembles the chunks of a message carried inside batches', async () => {
    const big = envelope(3000)
    const { ingest, delivered, chunks } = setup()
    const parts = chunksOf(big)
    ingest.handle(GROUP, batchOf(parts.slice(0, 2)))
    ingest.handle(GROUP, batchOf(parts.slice(2)))
    expect(delivered).toEqual([big])
    expect(await chunks()).toBe(parts.length)
  })

  it('counts each delivered envelope under its kind, and each eviction under its reason', async () => {
    const { ingest, by } = setup()
    ingest.handle(GROUP, bodyOf(envelope(3)))
    ingest.handle(GROUP, bodyOf(envelope(3, 'awareness')))
    expect(await by('envelopesOut', 'kind')).toEqual({ update: 1, awareness: 1 })
    // Nine messages open with one chunk each, eight allowed: the oldest is evicted.
    for (let i = 0; i < 9; i++) ingest.handle(GROUP, bodyOf(chunksOf(envelope(3000))[0] as Envelope))
    expect(await by('reassemblyEvictions', 'reason')).toEqual({ 'max-partial-messages': 1 })
  })
})
