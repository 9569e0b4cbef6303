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
import { nextDelay, SignalRpcError, type SignalBackend } from '@e2e-col/signal-cli'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { AttachmentSend } from './attachment-send.ts'
import { packNext, type BatchHeader } from './packer.ts'
import { classifySendFailure, type Reachability } from './reachability.ts'
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
}

export interface SendQueueOptions {
  groupId: string
  backend: SignalBackend
  maxBodyBytes: number
  maxQueueBytes: number
  bucket: TokenBucket
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

// A -5 without a usable retryAfterSeconds still pauses the group for this long.
const DEFAULT_RATE_LIMIT_PAUSE_MS = 60_000
type Outcome =
  | { kind: 'sent' }
  | { kind: 'rejected'; code: RefusalCode; message: string; rpcCode: number | undefined }
  | { kind: 'closed' }

export function createSendQueue(o: SendQueueOptions): SendQueue {
  const items: QueuedEnvelope[] = []
  // Envelopes whose frame `shrink` has seen already.
  const shrunk = new WeakSet<QueuedEnvelope>()
  // Fair queuing by start tags: an envelope's tag is one past the later of the last tag sent and
  // its source's previous tag, and `items` stays sorted by tag (stable). A source with many queued
  // envelopes thus takes one turn per round while each other source also gets one; each source's
  // own envelopes keep their order.
  const tags = new WeakMap<QueuedEnvelope, number>()
  const lastTagOf = new WeakMap<object, number>()
  const sharedSource = {}
  let servedTag = 0
  // Leading envelopes a new one may not pass: the front once the pump has started on it (it may be
  // compressed, packed and in flight), then the whole send until it is removed.
  let pinned = 0
  let bytes = 0
  let running = false
  let lastBatchAt = -Infinity
  let closed = false
  const abort = new AbortController()
  const idleWaiters: (() => void)[] = []
  // Envelopes whose attachment send failed: they go as text.
  const textOnly = new WeakSet<QueuedEnvelope>()
  // Bodies sent while some recipient was rate limited, to send again once the pause is over.
  const resends: { body: string; attachments: readonly string[] | undefined }[] = []
  const resendTries = new Map<string, number>()

  function settleIdle(): void {
    for (const w of idleWaiters.splice(0)) w()
  }

  function rateLimit(retryAfterSeconds: number | undefined): void {
    o.metrics.rateLimited.inc()
    const ms = retryAfterSeconds === undefined ? DEFAULT_RATE_LIMIT_PAUSE_MS : retryAfterSeconds * 1000
    o.bucket.pauseUntil(o.now() + ms)
    o.logger.warn({ groupPauseMs: ms }, 'Signal asked to slow down; pausing this group')
  }

  async function takeToken(): Promise<boolean> {
    for (;;) {
      if (closed) return false
      if (o.bucket.tryTake(o.now())) return true
      await o.sleep(o.bucket.waitMs(o.now()), abort.signal)
    }
  }

  /**
   * Sends one body; `tokenHeld` when the caller already took this send's token from the bucket.
   * With `attachments`, a transient failure is not retried: the caller falls back to text.
   */
  async function sendBody(body: string, tokenHeld = false, attachments?: readonly string[]): Promise<Outcome> {
    let attempt = 0
    let held = tokenHeld
    for (;;) {
      // While Signal is away only the holder of the probe turn sends.
      const probing = o.reach.state !== 'reachable'
      if (probing) {
        if (!(await o.reach.turn(abort.signal))) return { kind: 'closed' }
        o.metrics.signalProbes.inc()
      }
      if (!held && !(await takeToken())) {
        if (probing) o.reach.settled()
        return { kind: 'closed' }
      }
      held = false
      const started = o.now()
      try {
        const result = await (attachments === undefined
          ? o.backend.sendGroupMessage(o.groupId, body)
          : o.backend.sendGroupMessage(o.groupId, body, attachments))
        o.reach.succeeded()
        o.metrics.sendLatency.observe((o.now() - started) / 1000)
        // A partial RATE_LIMIT_FAILURE is still a send (at least one recipient got it); slow down.
        const waits = (result.results ?? [])
          .filter((r) => r.type === 'RATE_LIMIT_FAILURE')
          .map((r) => r.retryAfterSeconds ?? undefined)
        if (waits.length > 0) {
          rateLimit(Math.max(...waits.map((w) => w ?? DEFAULT_RATE_LIMIT_PAUSE_MS / 1000)))
          // The limited recipients never got it: send the same body to the group again after the
          // pause (bounded); members that did get it deduplicate it by message id.
          const tries = (resendTries.get(body) ?? 0) + 1
          if (tries < o.retry.attempts) {
            resendTries.set(body, tries)
            resends.push({ body, attachments })
          } else resendTries.delete(body)
        } else resendTries.delete(body)
        return { kind: 'sent' }
      } catch (error) {
        const failure = classifySendFailure(error)
        if (failure === 'rate-limited') {
          if (probing) o.reach.settled()
          rateLimit(error instanceof SignalRpcError ? error.retryAfterSeconds : undefined)
          continue // definitely not sent: wait out the pause and send the same body again
        }
        // A failed attachment send (not rate limited) goes back as text, where a network failure is handled.
        if (failure === 'rejected' || attachments !== undefined) {
          if (probing) o.reach.settled()
          const e = error as Error
          return {
            kind: 'rejected',
            code: 'SIDECAR_SEND_REJECTED',
            message: e.message,
            rpcCode: error instanceof SignalRpcError ? error.rpcCode : undefined,
          }
        }
        if (closed) {
          if (probing) o.reach.settled()
          return { kind: 'closed' }
        }
        o.metrics.sendRetries.inc()
        // A failed probe: the reachability logs state changes only, so a long absence costs no lines.
        if (probing) {
          o.reach.failed(failure, true)
          continue
        }
        o.logger.debug({ err: error, attempt }, 'send failed; will retry')
        attempt += 1
        if (attempt >= o.retry.attempts) {
          attempt = 0
          o.reach.failed(failure, false)
          continue
        }
        await o.sleep(nextDelay(attempt - 1, { baseMs: o.retry.baseMs, maxMs: o.retry.maxMs }, o.rng), abort.signal)
        if (closed) return { kind: 'closed' }
      }
    }
  }

  function removeFront(n: number): QueuedEnvelope[] {
    const taken = items.splice(0, n)
    for (const t of taken) {
      bytes -= t.frame.byteLength
      servedTag = Math.max(servedTag, tags.get(t) ?? 0)
    }
    pinned = 0
    return taken
  }

  /** Inserts after every envelope whose tag is not greater (usually at the end). */
  function insertFairly(item: QueuedEnvelope): void {
    const source = item.source ?? sharedSource
    const tag = Math.max(servedTag, lastTagOf.get(source) ?? 0) + 1
    lastTagOf.set(source, tag)
    tags.set(item, tag)
    let at = items.length
    while (at > pinned && (tags.get(items[at - 1] as QueuedEnvelope) ?? 0) > tag) at -= 1
    items.splice(at, 0, item)
  }

  /** Runs `shrink` on the front envelope once; false when the queue closed meanwhile. */
  async function shrinkFront(): Promise<boolean> {
    const front = items[0]
    if (front !== undefined) pinned = Math.max(pinned, 1)
    if (o.shrink === undefined || front === undefined || shrunk.has(front)) return true
    let frame = front.frame
    try {
      frame = await o.shrink(front.frame)
    } catch (error) {
      o.logger.warn({ err: error }, 'could not compress an envelope; sending it as it is')
    }
    if (closed) return false
    const next = frame === front.frame ? front : { ...front, frame }
    shrunk.add(next)
    tags.set(next, tags.get(front) ?? 0)
    // Only the pump removes items and nothing passes a pinned front, so it is still the same one.
    items[0] = next
    bytes += frame.byteLength - front.frame.byteLength
    return true
  }

  async function pump(): Promise<void> {
    running = true
    try {
      while ((items.length > 0 || resends.length > 0) && !abort.signal.aborted) {
        const resend = resends.shift()
        if (resend !== undefined) {
          // Already acknowledged: only its delivery to the limited members is at stake.
          const outcome = await sendBody(resend.body, false, resend.attachments)
          if (outcome.kind === 'closed') return
          if (outcome.kind !== 'sent')
            o.logger.warn({ outcome: outcome.kind }, 'resend after a partial rate limit failed')
          continue
        }
        if (!(await shrinkFront())) return
        // Wait for the pace first, then pack: envelopes that arrive during the wait ride along in
        // this send instead of waiting for the next token.
        const linger = lastBatchAt + (o.minIntervalMs ?? 0) - o.now()
        if (linger > 0) {
          await o.sleep(linger, abort.signal)
          if (closed) return
        }
        if (!(await takeToken())) return
        lastBatchAt = o.now()
        const front = items[0] as QueuedEnvelope
        const asAttachment = o.attachment === undefined || textOnly.has(front) ? undefined : o.attachment(front.frame)
        if (asAttachment !== undefined) {
          pinned = 1
          o.beforeSend?.([front.messageId])
          const outcome = await sendBody(asAttachment.body, true, asAttachment.attachments)
          if (outcome.kind === 'closed') return
          if (outcome.kind === 'sent') {
            o.metrics.attachmentsSent.inc({ outcome: 'sent' })
            o.metrics.bodiesSent.inc({ mode: 'attachment' })
            for (const t of removeFront(1)) t.owner.ack(t.messageId)
          } else {
            // Upload refused (rate limit, size) or unclear: the same envelope goes as text now;
            // receivers drop a second copy by message id.
            o.metrics.attachmentsSent.inc({ outcome: 'fell-back' })
            o.logger.info(
              { outcome: outcome.kind, rpcCode: outcome.kind === 'rejected' ? outcome.rpcCode : undefined },
              'attachment send failed; sending the envelope as text',
            )
            textOnly.add(front)
          }
          continue
        }
        const packed = packNext(
          items.map((i) => i.frame),
          o.maxBodyBytes,
          o.newBatchHeader,
        )
        pinned = packed.taken
        o.beforeSend?.(items.slice(0, packed.taken).map((i) => i.messageId))
        let outcome: Outcome = { kind: 'sent' }
        let tokenHeld = true
        for (const body of packed.bodies) {
          outcome = await sendBody(body, tokenHeld)
          tokenHeld = false
          if (outcome.kind !== 'sent') break
          o.metrics.bodiesSent.inc({ mode: packed.mode })
          o.metrics.batchFill.observe(bodyByteLength(body) / o.maxBodyBytes)
          if (packed.mode === 'chunked') o.metrics.chunksSent.inc()
        }
        if (outcome.kind === 'closed') return
        if (outcome.kind === 'sent') {
          for (const t of removeFront(packed.taken)) t.owner.ack(t.messageId)
        } else {
          o.metrics.sendFailures.inc({ outcome: 'rejected' })
          const rejected = removeFront(packed.taken)
          // The daemon's code only: its message may quote what was sent.
          o.logger.warn(
            { code: outcome.code, rpcCode: outcome.rpcCode, envelopes: rejected.length, groupQueued: items.length },
            'send rejected by signal-cli; the envelopes are dropped and their senders told',
          )
          // Owners first (each page hears about its own change), then the document forgets the ids.
          for (const t of rejected) t.owner.reject(t.messageId, outcome.code, outcome.message)
          o.onUnsent?.(rejected.map((t) => t.messageId))
        }
      }
    } finally {
      running = false
      settleIdle()
    }
  }

  return {
    enqueue(item) {
      if (closed || bytes + item.frame.byteLength > o.maxQueueBytes) return false
      insertFairly(item)
      bytes += item.frame.byteLength
      if (!running) void pump().catch((error: unknown) => o.logger.error({ err: error }, 'send queue stopped'))
      return true
    },
    async drain(timeoutMs) {
      if (!running && items.length === 0) return
      const idle = new Promise<void>((resolve) => idleWaiters.push(resolve))
      const timer = new AbortController()
      await Promise.race([idle, o.sleep(timeoutMs, timer.signal)])
      timer.abort()
    },
    close() {
      closed = true
      abort.abort()
      settleIdle()
    },
    rewrite(fn) {
      const waiting = items.splice(pinned)
      for (const w of waiting) bytes -= w.frame.byteLength
      for (const next of fn(waiting)) {
        insertFairly(next)
        bytes += next.frame.byteLength
      }
    },
    get waiting() {
      return items.length - pinned
    },
    get queuedBytes() {
      return bytes
    },
  }
}
