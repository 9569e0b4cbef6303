/**
 * A browser's change once it is durable in the replica and the outbox: who hears Signal's verdict
 * on it, how a backlog of them is merged while Signal is away, and how the changes a previous run
 * kept go out again.
 * @see docs/sidecar.md §4.3, §8.5
 */
import { decodeEnvelope, encodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import type { Session } from '../browser/session.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { Delivery } from '../send/delivery.ts'
import { mergeBacklog } from '../send/merge-backlog.ts'
import type { Reach } from '../send/reachability.ts'
import type { QueuedEnvelope, SendOwner, SendQueue } from '../send/queue.ts'
import { DOC_KINDS } from './doc-kinds.ts'
import type { ChangeStore } from './ports.ts'

/** What the rest of the sidecar asks of a document's sending side (`doc.outbox`). */
export interface OutboxSide {
  /** Frame bytes waiting in this document's send queue. */
  readonly queuedBytes: number
  /** Queues the changes a previous run accepted and Signal never took, merged (once, when started). */
  resumeKept(): void
  /** Signal went away or came back: a backlog is merged, the group asked again on the way back, the pages told. */
  reachChanged(state: Reach): void
  /** Resolves when the send queue is empty or `timeoutMs` passed. */
  drain(timeoutMs: number): Promise<void>
}

export interface KeptChangesParts {
  readonly docId: string
  readonly store: ChangeStore
  readonly queue: SendQueue
  readonly delivery: Delivery
  /** One of the sidecar's own envelopes for this document, its id already marked sent. */
  readonly ownSent: (kind: Kind, payload: Uint8Array) => Envelope
  /** Largest frame a page takes: a merged update stays within half of it. */
  readonly maxFrameBytes: number
  readonly metrics: Metrics
  readonly logger: Logger
}

export interface KeptChanges {
  /** The owner of a page's change once it is durable (undefined: a change a previous run kept). */
  ownerFor(session: Session | undefined): SendOwner
  /** Merges what waits in the queue into as few updates as the frame bound allows. */
  merge(waiting: readonly QueuedEnvelope[]): QueuedEnvelope[]
  /** Queues the changes a previous run accepted and Signal never took, merged. */
  resume(): void
}

export function createKeptChanges(p: KeptChangesParts): KeptChanges {
  const { store, delivery } = p

  function ownerFor(session: Session | undefined): SendOwner {
    return {
      ack: (id) => delivery.sent(id),
      reject: (id, code, message) => {
        store.dropUnsent([id])
        session?.refuse(code, message, { messageId: id, strike: false })
        delivery.refused(message)
      },
    }
  }

  function merge(waiting: readonly QueuedEnvelope[]): QueuedEnvelope[] {
    return mergeBacklog(waiting, {
      maxPayloadBytes: Math.floor(p.maxFrameBytes / 2),
      wrap: (payload, kind) => {
        const env = p.ownSent(kind, payload)
        return { frame: encodeEnvelope(env), messageId: env.messageId }
      },
      onMerged: (n) => p.metrics.backlogMerged.inc(n),
    })
  }

  /**
   * A kept change as it goes out again. When its send had begun before the stop (its id is
   * remembered before the first body goes out, §8.5), Signal may hold that id already: the change
   * goes out under a fresh id, so no id reaches the group twice.
   */
  function resumed(frame: Uint8Array, messageId: string): QueuedEnvelope {
    const kept = { frame, messageId, owner: ownerFor(undefined) }
    if (store.senderOf(messageId)?.known !== true) return kept
    let env: Envelope
    try {
      env = decodeEnvelope(frame, { maxPayloadBytes: frame.byteLength })
    } catch {
      return kept
    }
    if (!DOC_KINDS.has(env.kind)) return kept
    const fresh = p.ownSent(env.kind, env.payload)
    const owner = ownerFor(undefined)
    return {
      frame: encodeEnvelope(fresh),
      messageId: fresh.messageId,
      owner: {
        ack: () => owner.ack(messageId),
        reject: (_id, code, message) => owner.reject(messageId, code, message),
      },
    }
  }

  return {
    ownerFor,
    merge,
    resume() {
      const items = store.kept().map((row) => resumed(row.frame, row.messageId))
      for (const item of items.length > 1 ? merge(items) : items) p.queue.enqueue(item)
      if (items.length > 0)
        p.logger.info({ docId: p.docId, envelopes: items.length }, 'sending the changes a previous run kept')
    },
  }
}
