/**
 * The send queue's own types, which its parts (fair-order.ts, packing.ts, sender.ts) read too: they
 * sit here, below the queue that composes those parts, so no part imports its composer.
 */
import type { RefusalCode } from '@e2e-col/protocol'
import type { SignalBackend } from '@e2e-col/signal-cli'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { AttachmentSend } from './attachment-send.ts'
import type { BatchHeader } from './bodies.ts'
import type { Reachability } from './reachability.ts'
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
