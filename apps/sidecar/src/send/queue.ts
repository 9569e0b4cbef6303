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
import { bodyByteLength } from '@e2e-col/protocol'
import type { AttachmentSend } from './attachment-send.ts'
import { createFairOrder } from './fair-order.ts'
import { createPace } from './pace.ts'
import { createOwnFirst } from './own-first.ts'
import { createPacking } from './packing.ts'
import { createSender, type Outcome } from './sender.ts'

export type { QueuedEnvelope, SendOwner, SendQueue, SendQueueOptions } from './queue-types.ts'
import type { QueuedEnvelope, SendQueue, SendQueueOptions } from './queue-types.ts'

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
