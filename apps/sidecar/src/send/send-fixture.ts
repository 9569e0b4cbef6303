/**
 * For the send path's tests: envelopes of one document, virtual time, a reachability and a send
 * queue's options on that time, owners that record what they heard, and what a body carries.
 */
import { decodeBody, decodeEnvelope, encodeEnvelope, unpackBatch, type Kind } from '@e2e-col/protocol'
import type { SignalBackend } from '@e2e-col/signal-cli'
import { randomBytes, randomUUID } from 'node:crypto'
import { createLogger } from '../ops/logger.ts'
import { createMetrics } from '../ops/metrics.ts'
import type { SendOwner, SendQueueOptions } from './queue.ts'
import { createReachability, type Reachability, type ReachabilityOptions } from './reachability.ts'
import { createTokenBucket } from './token-bucket.ts'

/** The document every envelope of the fixture belongs to, and its sender. */
export const DOC = randomUUID()
export const SENDER = randomUUID()

/** One turn of the event loop. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Virtual time: `sleep` resolves only when the test advances the clock past its deadline. */
export function manualClock() {
  let t = 0
  let waiters: { at: number; resolve: () => void }[] = []
  return {
    now: () => t,
    sleep: (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        waiters.push({ at: t + ms, resolve })
        signal.addEventListener('abort', () => resolve(), { once: true })
      }),
    /** Sleeps not yet due. */
    pending: () => waiters.length,
    async advance(ms: number) {
      // Step through every deadline on the way, so a wait started at a deadline counts from it.
      const until = t + ms
      for (;;) {
        for (let i = 0; i < 5; i++) await settle()
        const next = Math.min(...waiters.map((w) => w.at))
        if (!(next <= until)) break
        t = Math.max(t, next)
        const due = waiters.filter((w) => w.at <= t)
        waiters = waiters.filter((w) => w.at > t)
        for (const w of due) w.resolve()
      }
      t = until
      for (let i = 0; i < 5; i++) await settle()
    },
  }
}

export type ManualClock = ReturnType<typeof manualClock>

/**
 * A reachability on `time` (3 quick attempts, probes from 10 ms up to 100 ms, no jitter, silent
 * logs); `over` replaces any option.
 */
export function reachOn(
  time: Pick<ReachabilityOptions, 'now' | 'sleep'>,
  over: Partial<ReachabilityOptions> = {},
): Reachability {
  return createReachability({
    attempts: 3,
    probeBaseMs: 10,
    probeMaxMs: 100,
    now: time.now,
    sleep: time.sleep,
    rng: () => 0.5,
    logger: createLogger('silent'),
    ...over,
  })
}

/** A fresh batch header of {@link DOC} from {@link SENDER}. */
export const newBatchHeader = () => ({
  docId: DOC,
  senderId: SENDER,
  messageId: randomBytes(16).toString('hex'),
  seq: 0,
})

/**
 * A queue's options for a test on `clock`: a fast bucket and retries, silent logs, a reachability
 * of its own unless `over` gives one; `over` replaces any option.
 */
export function queueOptions(
  clock: ManualClock,
  backend: object,
  over: Partial<SendQueueOptions> = {},
): SendQueueOptions {
  return {
    groupId: 'group',
    backend: backend as unknown as SignalBackend,
    maxBodyBytes: 2000,
    maxQueueBytes: 1 << 20,
    bucket: createTokenBucket({ ratePerSecond: 1000, burst: 1000, now: 0 }),
    retry: { attempts: 3, baseMs: 10, maxMs: 100 },
    now: clock.now,
    sleep: clock.sleep,
    rng: () => 0.5,
    newBatchHeader,
    metrics: createMetrics(),
    logger: createLogger('silent'),
    ...over,
    reach: over.reach ?? reachOn(clock),
  }
}

/** The frame of one envelope of {@link DOC} (an update at seq 1 unless `header` says otherwise) and its fresh message id. */
export function envelopeFrame(
  payload: Uint8Array,
  header: { kind?: Kind; seq?: number } = {},
): { frame: Uint8Array; messageId: string } {
  const messageId = randomBytes(16).toString('hex')
  const frame = encodeEnvelope({
    kind: header.kind ?? 'update',
    flags: 0,
    docId: DOC,
    senderId: SENDER,
    messageId,
    seq: header.seq ?? 1,
    payload,
  })
  return { frame, messageId }
}

/** An owner that records what it hears in `heard`: `ack <id>`, `reject <id> <code> <message>`. */
export const recordingOwner = (heard: string[]): SendOwner => ({
  ack: (id) => void heard.push(`ack ${id}`),
  reject: (id, code, message) => void heard.push(`reject ${id} ${code} ${message}`),
})

/** The message ids a body carries (one envelope, or every entry of a batch). */
export function idsIn(body: string): string[] {
  const env = decodeEnvelope(decodeBody(body))
  return env.kind === 'batch' ? unpackBatch(env).map((e) => e.messageId) : [env.messageId]
}
