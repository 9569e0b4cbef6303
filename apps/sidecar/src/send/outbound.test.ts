import { randomBytes } from 'node:crypto'
import { CAPABILITY, FLAGS, frameFlags } from '@e2e-col/protocol'
import type { SignalBackend } from '@e2e-col/signal-cli'
import { describe, expect, it } from 'vitest'
import { systemClock } from '../clock.ts'
import { createLogger } from '../ops/logger.ts'
import { createMetrics } from '../ops/metrics.ts'
import { createOutbound } from './outbound.ts'
import { DOC, envelopeFrame, reachOn, recordingOwner, SENDER } from './send-fixture.ts'

const BOTH = CAPABILITY.attachments | CAPABILITY.deflate

/** A document's queue from a sidecar using `features`, whose members read the bits `membersRead`. */
function queueOf(features: number, membersRead: number) {
  const sends: { body: string; attachments: readonly string[] | undefined }[] = []
  const backend = {
    sendGroupMessage: (_groupId: string, body: string, attachments?: readonly string[]) => {
      sends.push({ body, attachments })
      return Promise.resolve({ timestamp: 1 })
    },
  }
  const outbound = createOutbound({
    backend: backend as unknown as SignalBackend,
    reach: reachOn(systemClock),
    clock: systemClock,
    sidecarId: SENDER,
    features,
    send: {
      compress: true,
      maxQueueBytes: 1 << 22,
      sendsPerSecond: 1000,
      burst: 1000,
      attempts: 3,
      retryBaseMs: 10,
      retryMaxMs: 100,
      offlineProbeMaxMs: 100,
    },
    maxBodyBytes: 2000,
    attachmentMinBytes: 4096,
    stopped: () => false,
    metrics: createMetrics(),
    logger: createLogger('silent'),
  })
  const queue = outbound.open({
    docId: DOC,
    groupId: 'group',
    allRead: (bits) => (membersRead & bits) === bits,
    beforeSend: () => {},
    onUnsent: () => {},
  })
  return { sends, queue }
}

/** Sends one large, compressible update and returns what reached the backend. */
async function sendLarge(features: number, membersRead: number) {
  const { sends, queue } = queueOf(features, membersRead)
  const heard: string[] = []
  // Half noise, half repetition: deflating saves much, and what is left still needs chunks.
  const payload = new Uint8Array(50_000)
  payload.set(randomBytes(20_000))
  const { frame, messageId } = envelopeFrame(payload)
  queue.enqueue({ frame, messageId, owner: recordingOwner(heard) })
  await queue.drain(10_000)
  expect(heard).toEqual([`ack ${messageId}`])
  const attached = sends.flatMap((s) => s.attachments ?? [])
  const frames = attached.map((uri) => new Uint8Array(Buffer.from(uri.slice(uri.indexOf('base64,') + 7), 'base64')))
  return { sends, frames }
}

describe('the sending side uses a form only when every member reads it', () => {
  it('sends a large frame deflated, as one attachment, when every member reads both', async () => {
    const { sends, frames } = await sendLarge(BOTH, BOTH)
    expect(sends).toHaveLength(1)
    expect(frames).toHaveLength(1)
    expect(frameFlags(frames[0] as Uint8Array) & FLAGS.deflated).toBe(FLAGS.deflated)
    expect(frames[0]?.byteLength).toBeLessThan(30_000)
  })

  it('keeps the attachment plain when a member does not read deflate', async () => {
    const { sends, frames } = await sendLarge(BOTH, CAPABILITY.attachments)
    expect(sends).toHaveLength(1)
    expect(frames).toHaveLength(1)
    expect(frameFlags(frames[0] as Uint8Array) & FLAGS.deflated).toBe(0)
    expect(frames[0]?.byteLength).toBeGreaterThan(50_000)
  })

  it('sends text bodies when a member does not read attachments, or this sidecar does not use them', async () => {
    for (const [features, membersRead] of [
      [BOTH, CAPABILITY.deflate],
      [CAPABILITY.deflate, BOTH],
    ] as const) {
      const { sends, frames } = await sendLarge(features, membersRead)
      expect(frames).toEqual([])
      expect(sends.length).toBeGreaterThan(1)
      expect(sends.every((s) => s.attachments === undefined)).toBe(true)
    }
  })
})
