/**
 * One send queue per Signal group: envelopes wait here, are packed into bodies (batched or
 * chunked), paced by the group's token bucket and sent through the backend. Every envelope of a
 * successful send is reported sent to its owner. Transient failures (no network, daemon down) are
 * retried with jittered backoff; after `retry.attempts` of them Signal counts as away
 * (reachability.ts) and the queue keeps its envelopes, in order, and tries again only when it holds
 * the sidecar's one probe turn. Nothing is dropped for being unsent: the sidecar owns delivery once
 * an envelope is durable (a resend of one that did go out is deduplicated by its receivers).
 * @see docs/sidecar.md §4, daemon-contract.md §6.7
 */
import { bodyByteLength, type RefusalCode } from '@e2e-col/protocol'
import type { SignalBackend } from '@e2e-col/signal-cli'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { AttachmentSend } from './attachment-send.ts'
import { createFairOrder } from './fair-order.ts'
import type { BatchHeader } from './packer.ts'
import { createPace } from './pace.ts'
import { createOwnFirst } from './own-first.ts'
import { createPacking } from './packing.ts'
import type { Reachability } from './reachability.ts'
import { createSender, type Outcome } from './sender.ts'
import type { TokenBucket } from './token-bucket.ts'

/** Who gets told about the fate of a queued envelope. */
export interface SendOwner {
  ack(messageId: string): void
  reject(messageId: string, code: RefusalCode, message: string): void
}

export interface QueuedEnvelope {
  readonly frame: Uint8Array
  readonly messageId: string
  readonly owner: SendOwner
  /**
   * Who submitted it (a browser connection, the replica): the queue takes turns between sources,
   * so one that floods does not hold back the others. Envelopes without a source share one.
   */
  readonly source?: object
  /**
   * A person's own change: between two bodies of a long send that is not one (the replica's
   * answer in chunks), one such change that fits one body goes first (docs/sidecar.md §4.5).
   */
  readonly first?: boolean
}

export interface SendQueueOptions {
  groupId: string
  backend: SignalBackend
  maxBodyBytes: number
  maxQueueBytes: number
  bucket: TokenBucket
  /**
   * Signal's inbound byte budget, counted in bytes and shared by every queue of the account: each
   * body (and attachment) waits until its bytes fit (docs/sidecar.md §4.2). Absent: not paced by bytes.
   */
  inboundBytes?: TokenBucket
  retry: { attempts: number; baseMs: number; maxMs: number }
  now: () => number
  /** Resolves after `ms` or when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>
  rng: () => number
  newBatchHeader: () => BatchHeader
  /**
   * Least time between the starts of two sends of new envelopes (the pace's interval, 1000 / rate).
   * Under steady editing this lets envelopes gather into one send per interval instead of spending
   * the bucket's burst on tiny sends; the burst stays for the further bodies of a chunked envelope,
   * resends, and the first send after a quiet spell.
   */
  minIntervalMs?: number
  /**
   * Makes a frame cheaper to send before it is packed (payload compression); called at most once
   * per envelope, for the one at the front. Its result replaces the frame; a throw keeps the frame.
   */
  shrink?: (frame: Uint8Array) => Promise<Uint8Array>
  /**
   * The front envelope's frame (after `shrink`) as one attachment send, when it should go that
   * way; `undefined` sends it as text. A failed attachment send (not rate limited) falls back to
   * text: the envelope is never lost to it.
   */
  attachment?: (frame: Uint8Array) => AttachmentSend | undefined
  /** The sidecar's shared view of Signal: whether to send, and where to report transient failures. */
  reach: Reachability
  /**
   * Called with the message ids of the next send before its first body goes out (the replica
   * remembers them durably); a throw stops the queue without sending.
   */
  beforeSend?: (messageIds: readonly string[]) => void
  /** Called with the ids of envelopes dropped unsent (Signal definitely refused them). */
  onUnsent?: (messageIds: readonly string[]) => void
  metrics: Metrics
  logger: Logger
}

export interface SendQueue {
  /** Queues one envelope; false when the queue's byte bound would be exceeded. */
  enqueue(item: QueuedEnvelope): boolean
  /** Resolves when the queue is empty or `timeoutMs` passed. */
  drain(timeoutMs: number): Promise<void>
  close(): void
  /**
   * Replaces the envelopes not yet taken by a send with `fn` of them (merging a backlog); `fn` must
   * keep every owner told. Runs synchronously.
   */
  rewrite(fn: (waiting: readonly QueuedEnvelope[]) => QueuedEnvelope[]): void
  /** Envelopes waiting (not yet taken by a send). */
  readonly waiting: number
  readonly queuedBytes: number
}

export function createSendQueue(o: SendQueueOptions): SendQueue {
  const order = createFairOrder()
  const abort = new AbortController()
  const closed = (): boolean => abort.signal.aborted
  const pace = createPace({ ...o, minIntervalMs: o.minIntervalMs ?? 0, signal: abort.signal })
  const sender = createSender({ ...o, pace, signal: abort.signal })
  const packing = createPacking(o)
  let running = false
  const idleWaiters: (() => void)[] = []

  function settleIdle(): void {
    for (const w of idleWaiters.splice(0)) w()
  }

  /** The front envelope as one attachment send; false when the queue closed meanwhile. */
  async function sendAttachment(front: QueuedEnvelope, send: AttachmentSend): Promise<boolean> {
    order.pin(1)
    o.beforeSend?.([front.messageId])
    const outcome = await sender.send(send.body, true, send.attachments)
    if (outcome.kind === 'closed') return false
    if (outcome.kind === 'sent') {
      o.metrics.attachmentsSent.inc({ outcome: 'sent' })
      o.metrics.bodiesSent.inc({ mode: 'attachment' })
      for (const t of order.removeFront(1)) t.owner.ack(t.messageId)
      return true
    }
    // Upload refused (rate limit, size) or unclear: the same envelope goes as text now;
    // receivers drop a second copy by message id.
    o.metrics.attachmentsSent.inc({ outcome: 'fell-back' })
    o.logger.info(
      { outcome: outcome.kind, rpcCode: outcome.kind === 'rejected' ? outcome.rpcCode : undefined },
      'attachment send failed; sending the envelope as text',
    )
    packing.textOnly(front)
    return true
  }

  const ownChangeFirst = createOwnFirst({ ...o, order, packing, sender })

  /** The leading envelopes packed into bodies; false when the queue closed meanwhile. */
  async function sendPacked(): Promise<boolean> {
    const packed = packing.pack(order.items)
    order.pin(packed.taken)
    o.beforeSend?.(order.items.slice(0, packed.taken).map((i) => i.messageId))
    let outcome: Outcome = { kind: 'sent' }
    let tokenHeld = true
    // A long send of others' traffic gives every other body to a person's own change.
    const yields = packed.bodies.length > 1 && order.items[0]?.first !== true
    for (const [i, body] of packed.bodies.entries()) {
      if (yields && i > 0) {
        // The token first: an own change that comes while it is awaited still goes first.
        if (!(await pace.takeToken())) return false
        const own = await ownChangeFirst()
        if (own === 'closed') return false
        tokenHeld = own === 'none'
      }
      outcome = await sender.send(body, tokenHeld)
      tokenHeld = false
      if (outcome.kind !== 'sent') break
      o.metrics.bodiesSent.inc({ mode: packed.mode })
      o.metrics.batchFill.observe(bodyByteLength(body) / o.maxBodyBytes)
      if (packed.mode === 'chunked') o.metrics.chunksSent.inc()
    }
    if (outcome.kind === 'closed') return false
    if (outcome.kind === 'sent') {
      for (const t of order.removeFront(packed.taken)) t.owner.ack(t.messageId)
      return true
    }
    o.metrics.sendFailures.inc({ outcome: 'rejected' })
    const rejected = order.removeFront(packed.taken)
    // The daemon's code only: its message may quote what was sent.
    o.logger.warn(
      { code: outcome.code, rpcCode: outcome.rpcCode, envelopes: rejected.length, groupQueued: order.items.length },
      'send rejected by signal-cli; the envelopes are dropped and their senders told',
    )
    // Owners first (each page hears about its own change), then the document forgets the ids.
    for (const t of rejected) t.owner.reject(t.messageId, outcome.code, outcome.message)
    o.onUnsent?.(rejected.map((t) => t.messageId))
    return true
  }

  /** One step of the pump: a resend, or the next send of new envelopes; false to stop. */
  async function step(): Promise<boolean> {
    const resend = sender.nextResend()
    if (resend !== undefined) {
      // Already acknowledged: only its delivery to the limited members is at stake.
      const outcome = await sender.send(resend.body, false, resend.attachments)
      if (outcome.kind === 'closed') return false
      if (outcome.kind !== 'sent') o.logger.warn({ outcome: outcome.kind }, 'resend after a partial rate limit failed')
      return true
    }
    if (!(await packing.shrinkFront(order, closed))) return false
    // Wait for the pace first, then pack: envelopes that arrive during the wait ride along in
    // this send instead of waiting for the next token.
    if (!(await pace.linger()) || !(await pace.takeToken())) return false
    pace.started()
    const front = order.items[0] as QueuedEnvelope
    const asAttachment = packing.asAttachment(front)
    return asAttachment === undefined ? sendPacked() : sendAttachment(front, asAttachment)
  }

  async function pump(): Promise<void> {
    running = true
    try {
      while ((order.items.length > 0 || sender.resending) && !closed()) if (!(await step())) return
    } finally {
      running = false
      settleIdle()
    }
  }

  return {
    enqueue(item) {
      if (closed() || order.bytes + item.frame.byteLength > o.maxQueueBytes) return false
      order.insert(item)
      if (!running) void pump().catch((error: unknown) => o.logger.error({ err: error }, 'send queue stopped'))
      return true
    },
    async drain(timeoutMs) {
      if (!running && order.items.length === 0) return
      const idle = new Promise<void>((resolve) => idleWaiters.push(resolve))
      const timer = new AbortController()
      await Promise.race([idle, o.sleep(timeoutMs, timer.signal)])
      timer.abort()
    },
    close() {
      abort.abort()
      settleIdle()
    },
    rewrite(fn) {
      for (const next of fn(order.takeWaiting())) order.insert(next)
    },
    get waiting() {
      return order.items.length - order.pinned
    },
    get queuedBytes() {
      return order.bytes
    },
  }
}
