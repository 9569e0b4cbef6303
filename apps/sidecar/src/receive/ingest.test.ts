import { encodeEnvelope, FLAGS, type Envelope, type Kind } from '@e2e-col/protocol'
import { deflateRawSync } from 'node:zlib'
import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { installNodeCodecs } from '../node-codecs.ts'
import { packNext } from '../send/bodies.ts'
import { SELF } from './ingest.ts'
import { FIXTURE_GROUP as GROUP, ingestFixture, randomEnvelope } from './ingest-fixture.ts'

const DOC = randomUUID()
const SENDER = randomUUID()
const header = () => ({ docId: DOC, senderId: randomUUID(), messageId: randomBytes(16).toString('hex'), seq: 0 })

const envelope = (payloadBytes: number, kind: Kind = 'update', docId = DOC): Envelope =>
  randomEnvelope(docId, SENDER, payloadBytes, kind)
const setup = () => ingestFixture(DOC)

/** Sends every frame through the packer, returning all bodies in order. */
function bodiesFor(frames: Uint8Array[], maxBodyBytes: number): string[] {
  const out: string[] = []
  let rest = frames
  while (rest.length > 0) {
    const p = packNext(rest, maxBodyBytes, header)
    for (const b of p.bodies) expect(b.length).toBeLessThanOrEqual(maxBodyBytes)
    out.push(...p.bodies)
    rest = rest.slice(p.taken)
  }
  return out
}

describe('packing and the receive path', () => {
  it('keeps each delivered frame intact while later bodies reuse the decode buffer', () => {
    installNodeCodecs() // the sidecar's codecs decode bodies into the reused buffer
    const { ingest, delivered } = setup()
    const frames: Uint8Array[] = []
    const { ingest: own } = ingestFixture(DOC, { deliver: (_doc, frame) => void frames.push(frame) })
    const envs = [envelope(300), envelope(300), envelope(300)]
    for (const e of envs) {
      const body = bodiesFor([encodeEnvelope(e)], 2000)
      expect(body).toHaveLength(1)
      own.handle(GROUP, body[0] ?? '')
      ingest.handle(GROUP, body[0] ?? '')
    }
    expect(frames.map((f) => Buffer.from(f).toString('hex'))).toEqual(
      envs.map((e) => Buffer.from(encodeEnvelope(e)).toString('hex')),
    )
    expect(delivered.map((e) => Buffer.from(e.payload).toString('hex'))).toEqual(
      envs.map((e) => Buffer.from(e.payload).toString('hex')),
    )
  })

  it('batches many small envelopes into few bodies and delivers each exactly once', () => {
    const envs = Array.from({ length: 200 }, () => envelope(20))
    const bodies = bodiesFor(envs.map(encodeEnvelope), 600)
    expect(bodies.length).toBeLessThanOrEqual(50) // ~75-byte frames, ~430 bytes per 600-byte body
    const { ingest, delivered } = setup()
    for (const b of bodies) ingest.handle(GROUP, b)
    expect(delivered.map((e) => e.messageId)).toEqual(envs.map((e) => e.messageId))
  })

  it('chunks a 100 KiB envelope into bodies within the boundary and reassembles it whole, in any order', () => {
    const env = envelope(100 * 1024)
    const bodies = bodiesFor([encodeEnvelope(env)], 600)
    expect(bodies.length).toBeGreaterThan(100)
    const { ingest, delivered } = setup()
    for (let i = bodies.length - 1; i >= 0; i--) ingest.handle(GROUP, bodies[i] ?? '')
    expect(delivered).toHaveLength(1)
    expect(Buffer.from(delivered[0]?.payload ?? []).equals(Buffer.from(env.payload))).toBe(true)
  })

  it('drops duplicates of a delivered message, including a replay batched differently', () => {
    const envs = [envelope(10), envelope(10)]
    const { ingest, delivered, metrics } = setup()
    for (const b of bodiesFor(envs.map(encodeEnvelope), 1000)) ingest.handle(GROUP, b)
    for (const e of envs) ingest.handle(GROUP, bodiesFor([encodeEnvelope(e)], 1000)[0] ?? '')
    expect(delivered).toHaveLength(2)
    return expect(metrics.dedupHits.get().then((m) => m.values[0]?.value)).resolves.toBe(2)
  })

  it('never delivers back what this sidecar sent itself (the sync copy)', () => {
    const env = envelope(10)
    const big = envelope(5000)
    const { ingest, delivered } = setup()
    ingest.markSent(DOC, env.senderId, env.messageId)
    ingest.markSent(DOC, big.senderId, big.messageId)
    // The sync copy comes from this account's own devices.
    for (const b of bodiesFor([encodeEnvelope(env), encodeEnvelope(big)], 600))
      ingest.handle(GROUP, b, { source: SELF })
    expect(delivered).toHaveLength(0)
  })

  it('drops plain text, other documents, unmapped groups, ack/error kinds and garbage without throwing', async () => {
    const { ingest, delivered, metrics } = setup()
    ingest.handle(GROUP, 'hello, plain chat')
    ingest.handle(GROUP, 'e2e-col:v1:!!!!')
    ingest.handle('b3RoZXI=', bodiesFor([encodeEnvelope(envelope(5))], 600)[0] ?? '')
    ingest.handle(GROUP, bodiesFor([encodeEnvelope(envelope(5, 'update', randomUUID()))], 600)[0] ?? '')
    for (const kind of ['ack', 'error'] as const) {
      ingest.handle(GROUP, `e2e-col:v1:${Buffer.from(encodeEnvelope(envelope(0, kind))).toString('base64')}`)
    }
    expect(delivered).toHaveLength(0)
    const reasons = (await metrics.receivedDropped.get()).values.map((v) => v.labels['reason'])
    expect(reasons).toEqual(
      expect.arrayContaining(['plain-text', 'invalid-body', 'unmapped-group', 'wrong-document', 'local-only-kind']),
    )
  })
})

const sharedText = (n: number): Uint8Array =>
  new TextEncoder().encode('shared text that compresses well; '.repeat(Math.ceil(n / 34)).slice(0, n))
const deflatedFrame = (env: Envelope, payload: Uint8Array): Uint8Array =>
  encodeEnvelope({ ...env, flags: FLAGS.deflated, payload })

describe('deflated envelopes on the receive path', () => {
  it('inflates a chunked deflated envelope and delivers it plain, flag cleared', () => {
    const env = { ...envelope(0), payload: sharedText(50_000) }
    const frame = deflatedFrame(env, new Uint8Array(deflateRawSync(env.payload)))
    const { ingest, delivered } = setup()
    for (const b of bodiesFor([frame], 600)) ingest.handle(GROUP, b)
    expect(delivered).toEqual([env])
  })

  it('delivers a large deflated envelope once when Signal delivers every body of it twice', async () => {
    // Hex text: deflates to about half, still many bodies.
    const env = { ...envelope(0), payload: new TextEncoder().encode(randomBytes(10_000).toString('hex')) }
    const bodies = bodiesFor([deflatedFrame(env, new Uint8Array(deflateRawSync(env.payload)))], 600)
    expect(bodies.length).toBeGreaterThan(10)
    const { ingest, delivered, metrics } = setup()
    for (const b of bodies) ingest.handle(GROUP, b)
    for (const b of bodies) ingest.handle(GROUP, b)
    expect(delivered).toEqual([env])
    // Every chunk of the second copy is dropped on sight, none reassembled again.
    expect((await metrics.dedupHits.get()).values[0]?.value).toBe(bodies.length)
  })

  it('delivers a deflated envelope that fits one body once when it arrives twice', () => {
    const env = { ...envelope(0), payload: sharedText(3000) }
    const bodies = bodiesFor([deflatedFrame(env, new Uint8Array(deflateRawSync(env.payload)))], 2000)
    expect(bodies).toHaveLength(1)
    const { ingest, delivered } = setup()
    ingest.handle(GROUP, bodies[0] ?? '')
    ingest.handle(GROUP, bodies[0] ?? '')
    expect(delivered).toEqual([env])
  })

  it('drops a deflate bomb and a corrupt payload without delivering, and a later good copy still arrives', async () => {
    const env = { ...envelope(0), payload: sharedText(2000) }
    const { ingest, delivered, metrics } = setup()
    const bomb = deflatedFrame(envelope(0), new Uint8Array(deflateRawSync(new Uint8Array(16 * 1024 * 1024))))
    for (const b of bodiesFor([bomb], 2000)) ingest.handle(GROUP, b)
    for (const b of bodiesFor([deflatedFrame(env, Uint8Array.of(9, 9, 9))], 2000)) ingest.handle(GROUP, b)
    expect(delivered).toHaveLength(0)
    const reasons = (await metrics.receivedDropped.get()).values.map((v) => v.labels['reason'])
    expect(reasons).toEqual(expect.arrayContaining(['inflate-too-large', 'inflate-failed']))
    for (const b of bodiesFor([deflatedFrame(env, new Uint8Array(deflateRawSync(env.payload)))], 2000))
      ingest.handle(GROUP, b)
    expect(delivered).toEqual([env])
  })
})
