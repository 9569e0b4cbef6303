/**
 * The receive path of attachment references (docs/sidecar.md §4.6): an `attachment` envelope in a
 * body of its own is deduplicated first, its frame fetched from the same message's attachments and
 * checked, and the envelope then goes on as if it had come in text. A lost one is counted, its id
 * not recorded (a good copy still gets through), and the document told to ask again.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { encodeAttachmentRef, encodeBody, encodeEnvelope, FLAGS, packBatch, type Envelope } from '@e2e-col/protocol'
import type { SignalAttachment } from '@e2e-col/signal-cli'
import { describe, expect, it, vi } from 'vitest'
import { installNodeCodecs } from '../node-codecs.ts'
import { sha256 } from '../send/attachment-send.ts'
import { createAttachmentFetcher } from './attachment-fetch.ts'
import { FIXTURE_GROUP as GROUP, ingestFixture } from './ingest-fixture.ts'

const DOC = randomUUID()
const SENDER = randomUUID()

const snapshot = (payload: Uint8Array = new Uint8Array(randomBytes(8000)), flags = 0): Envelope => ({
  kind: 'snapshot',
  flags,
  docId: DOC,
  senderId: SENDER,
  messageId: randomBytes(16).toString('hex'),
  seq: 3,
  payload,
})

/** The text body and the listed attachment of one attachment send of `env`. */
function attachmentMessage(env: Envelope) {
  const frame = encodeEnvelope(env)
  const body = encodeBody(encodeAttachmentRef(frame, sha256(frame)))
  const id = `${env.messageId}.bin`
  return { frame, body, id, attachments: [{ id, size: frame.byteLength, contentType: 'application/octet-stream' }] }
}

function setup(
  store: Map<string, Uint8Array>,
  extra: {
    withoutFetcher?: boolean
    withoutCallbacks?: boolean
    bounds?: { maxFrameBytes: number; maxAttachmentFrameBytes: number }
  } = {},
) {
  const lost: string[] = []
  let fetched = 0
  const asked: string[] = []
  const releases: (() => void)[] = []
  let hold = false
  const fetcher = createAttachmentFetcher({
    fetch: async (id) => {
      asked.push(id)
      if (hold) await new Promise<void>((resolve) => releases.push(resolve))
      const bytes = store.get(id)
      if (bytes === undefined) throw Object.assign(new Error('no such attachment'), { rpcCode: -1 })
      return bytes
    },
    maxPayloadBytes: 4 * 1024 * 1024,
    timeoutMs: 60_000,
    maxInFlight: 4,
    maxWaiting: 64,
  })
  const { ingest, deliveries, metrics, by } = ingestFixture(DOC, {
    ...extra.bounds,
    ...(extra.withoutFetcher === true ? {} : { attachments: fetcher }),
    ...(extra.withoutCallbacks === true
      ? {}
      : { onLost: (docId, reason) => void lost.push(`${docId} ${reason}`), onFetched: () => void (fetched += 1) }),
  })
  return {
    ingest,
    delivered: deliveries,
    lost,
    asked,
    metrics,
    by,
    fetchedCount: () => fetched,
    holdFetches: () => void (hold = true),
    release: () => {
      for (const r of releases.splice(0)) r()
    },
  }
}

/** Handles `messages` from one account with fetches held until `asks` of them were asked, then answers them. */
async function handleWhileHeld(
  s: ReturnType<typeof setup>,
  messages: readonly { body: string; attachments: readonly SignalAttachment[] }[],
  asks: number,
) {
  s.holdFetches()
  for (const m of messages) s.ingest.handle(GROUP, m.body, { source: 'acc-1', attachments: m.attachments })
  await vi.waitFor(() => expect(s.asked).toHaveLength(asks))
  s.release()
}

describe('attachment references on the receive path', () => {
  it('fetches the named frame, checks it and delivers its envelope with who sent it', async () => {
    const env = snapshot()
    const m = attachmentMessage(env)
    const s = setup(new Map([[m.id, m.frame]]))
    s.ingest.handle(GROUP, m.body, { from: 'member-1' as never, source: 'acc-1', attachments: m.attachments })
    await vi.waitFor(() => expect(s.delivered).toHaveLength(1))
    expect(s.delivered[0]).toEqual({ env, from: 'member-1', source: 'acc-1' })
    expect(s.asked).toEqual([m.id])
    expect(s.fetchedCount()).toBe(1)
    expect(await s.by('attachmentsFetched', 'outcome')).toEqual({ ok: 1 })
    expect(s.lost).toEqual([])
  })

  it('fetches once for copies that arrive during the fetch and after it, delivering once', async () => {
    const env = snapshot()
    const m = attachmentMessage(env)
    const s = setup(new Map([[m.id, m.frame]]))
    await handleWhileHeld(s, [m, m], 1)
    await vi.waitFor(() => expect(s.delivered).toHaveLength(1))
    s.ingest.handle(GROUP, m.body, { source: 'acc-1', attachments: m.attachments })
    await new Promise((r) => setImmediate(r))
    expect(s.asked).toHaveLength(1)
    expect(s.delivered).toHaveLength(1)
    expect((await s.metrics.dedupHits.get()).values[0]?.value).toBe(2)
  })

  it('keeps the fetches of different messages apart', async () => {
    const a = attachmentMessage(snapshot())
    const b = attachmentMessage(snapshot())
    const s = setup(
      new Map([
        [a.id, a.frame],
        [b.id, b.frame],
      ]),
    )
    await handleWhileHeld(s, [a, b], 2)
    await vi.waitFor(() => expect(s.delivered).toHaveLength(2))
  })

  it('keeps the reference apart from the bodies decoded while its frame is fetched', async () => {
    // The sidecar's codecs decode bodies into one reused buffer: the next one must not overwrite
    // the reference.
    installNodeCodecs()
    const env = snapshot()
    const m = attachmentMessage(env)
    const next = { ...snapshot(new Uint8Array(randomBytes(200))), kind: 'update' as const }
    const s = setup(new Map([[m.id, m.frame]]))
    await handleWhileHeld(s, [m, { body: encodeBody(encodeEnvelope(next)), attachments: [] }], 1)
    await vi.waitFor(() => expect(s.delivered).toHaveLength(2))
    expect(s.delivered.map((d) => d.env)).toEqual([next, env])
    expect(s.lost).toEqual([])
  })

  it('counts a missing attachment, tells the document, and lets a later good copy through', async () => {
    const env = snapshot()
    const m = attachmentMessage(env)
    const store = new Map<string, Uint8Array>()
    const s = setup(store)
    s.ingest.handle(GROUP, m.body, { source: 'acc-1', attachments: m.attachments })
    await vi.waitFor(() => expect(s.lost).toEqual([`${DOC} missing`]))
    expect(await s.by('receivedDropped', 'reason')).toEqual({ 'attachment-missing': 1 })
    expect(await s.by('attachmentsFetched', 'outcome')).toEqual({ missing: 1 })
    expect(s.delivered).toEqual([])
    // Nothing listed with the message at all: missing too, without asking the daemon.
    s.ingest.handle(GROUP, m.body, { source: 'acc-1' })
    await vi.waitFor(() => expect(s.lost).toHaveLength(2))
    expect(s.asked).toEqual([m.id])
    store.set(m.id, m.frame)
    s.ingest.handle(GROUP, m.body, { source: 'acc-1', attachments: m.attachments })
    await vi.waitFor(() => expect(s.delivered.map((d) => d.env)).toEqual([env]))
    expect(s.fetchedCount()).toBe(1)
  })

  it('inflates a deflated carried frame before delivering it plain', async () => {
    const plain = new TextEncoder().encode('text that repeats itself; '.repeat(600))
    const env = snapshot(new Uint8Array(deflateRawSync(plain)), FLAGS.deflated)
    const m = attachmentMessage(env)
    const s = setup(new Map([[m.id, m.frame]]))
    s.ingest.handle(GROUP, m.body, { source: 'acc-1', attachments: m.attachments })
    await vi.waitFor(() => expect(s.delivered).toHaveLength(1))
    expect(s.delivered[0]?.env).toEqual({ ...env, flags: 0, payload: plain })
  })

  it("inflates an attachment's frame up to the attachment bound, beyond the bound of frames that come as text", async () => {
    const bounds = { maxFrameBytes: 64 * 1024, maxAttachmentFrameBytes: 1024 * 1024 }
    const plain = new TextEncoder().encode('a whole document for a newcomer; '.repeat(15_000)) // ~500 KB
    const env = snapshot(new Uint8Array(deflateRawSync(plain)), FLAGS.deflated)
    const m = attachmentMessage(env)
    const s = setup(new Map([[m.id, m.frame]]), { bounds })
    s.ingest.handle(GROUP, m.body, { source: 'acc-1', attachments: m.attachments })
    await vi.waitFor(() => expect(s.delivered).toHaveLength(1))
    expect(s.delivered[0]?.env.payload).toEqual(plain)
    // The same envelope in a text body stays within the text bound.
    const text = setup(new Map(), { bounds })
    text.ingest.handle(GROUP, encodeBody(encodeEnvelope({ ...env, messageId: randomBytes(16).toString('hex') })), {
      source: 'acc-1',
    })
    expect(text.delivered).toHaveLength(0)
    expect(await text.by('receivedDropped', 'reason')).toEqual({ 'inflate-too-large': 1 })
  })

  it('keeps an attachment that is not a whole document (an update) to the text bound', async () => {
    const bounds = { maxFrameBytes: 64 * 1024, maxAttachmentFrameBytes: 1024 * 1024 }
    const plain = new TextEncoder().encode('a paste, not a whole document; '.repeat(15_000))
    const deflated = attachmentMessage({
      ...snapshot(new Uint8Array(deflateRawSync(plain)), FLAGS.deflated),
      kind: 'update',
    })
    const large = attachmentMessage({ ...snapshot(new Uint8Array(randomBytes(100 * 1024))), kind: 'update' })
    const s = setup(
      new Map([
        [deflated.id, deflated.frame],
        [large.id, large.frame],
      ]),
      { bounds },
    )
    s.ingest.handle(GROUP, deflated.body, { source: 'acc-1', attachments: deflated.attachments })
    s.ingest.handle(GROUP, large.body, { source: 'acc-1', attachments: large.attachments })
    await vi.waitFor(async () =>
      expect(await s.by('receivedDropped', 'reason')).toEqual({ 'inflate-too-large': 1, 'attachment-too-large': 1 }),
    )
    expect(s.delivered).toHaveLength(0)
  })

  it('drops an attachment whose frame would inflate beyond the attachment bound', async () => {
    const bounds = { maxFrameBytes: 64 * 1024, maxAttachmentFrameBytes: 256 * 1024 }
    const plain = new TextEncoder().encode('a whole document for a newcomer; '.repeat(15_000))
    const m = attachmentMessage(snapshot(new Uint8Array(deflateRawSync(plain)), FLAGS.deflated))
    const s = setup(new Map([[m.id, m.frame]]), { bounds })
    s.ingest.handle(GROUP, m.body, { source: 'acc-1', attachments: m.attachments })
    await vi.waitFor(async () => expect(await s.by('receivedDropped', 'reason')).toEqual({ 'inflate-too-large': 1 }))
    expect(s.delivered).toHaveLength(0)
  })

  it('drops a reference when no fetcher is configured, and one inside a batch', async () => {
    const m = attachmentMessage(snapshot())
    const none = setup(new Map(), { withoutFetcher: true })
    none.ingest.handle(GROUP, m.body, { source: 'acc-1', attachments: m.attachments })
    expect(await none.by('receivedDropped', 'reason')).toEqual({ 'unsupported-kind': 1 })
    expect(none.asked).toEqual([])

    const s = setup(new Map([[m.id, m.frame]]))
    const ref = encodeAttachmentRef(m.frame, sha256(m.frame))
    const other = encodeEnvelope({ ...snapshot(new Uint8Array(10)), kind: 'update' })
    const batch = packBatch(
      { docId: DOC, senderId: SENDER, messageId: randomBytes(16).toString('hex'), seq: 1 },
      [ref, other],
      { maxBodyBytes: 1 << 20 },
    )
    s.ingest.handle(GROUP, encodeBody(batch.frame), { source: 'acc-1', attachments: m.attachments })
    expect(await s.by('receivedDropped', 'reason')).toEqual({ 'unexpected-kind': 1 })
    expect(s.delivered.map((d) => d.env.kind)).toEqual(['update'])
    expect(s.asked).toEqual([])
  })
  it('delivers a fetched frame and counts a lost one when nobody asked to be told', async () => {
    const goodEnv = snapshot()
    const good = attachmentMessage(goodEnv)
    const gone = attachmentMessage(snapshot())
    const s = setup(new Map([[good.id, good.frame]]), { withoutCallbacks: true })
    s.ingest.handle(GROUP, good.body, { source: 'acc-1', attachments: good.attachments })
    s.ingest.handle(GROUP, gone.body, { source: 'acc-1', attachments: gone.attachments })
    await vi.waitFor(async () => expect(await s.by('attachmentsFetched', 'outcome')).toEqual({ ok: 1, missing: 1 }))
    await new Promise((r) => setImmediate(r))
    expect(s.delivered.map((d) => d.env.messageId)).toEqual([goodEnv.messageId])
    expect(await s.by('receivedDropped', 'reason')).toEqual({ 'attachment-missing': 1 })
  })

  it('drops a reference that comes without message details as missing, asking the daemon nothing', async () => {
    const m = attachmentMessage(snapshot())
    const s = setup(new Map([[m.id, m.frame]]))
    s.ingest.handle(GROUP, m.body)
    await vi.waitFor(() => expect(s.lost).toEqual([`${DOC} missing`]))
    expect(s.asked).toEqual([])
    expect(s.delivered).toEqual([])
  })
})
