/**
 * The sidecar's sending side as the documents see it: it opens one send queue per document's
 * group, all on one reachability, one attachment-upload budget and one inbound byte budget for the
 * account, one batch sequence and one compression setting. A document only says which forms its members read (its roster) and
 * what to do with the ids of a send. Compression and attachments are used only when every member
 * reads them (an older sidecar drops what it cannot read).
 * @see docs/sidecar.md §4.2, §4.4
 */
import { CAPABILITY, FLAGS, frameFlags } from '@e2e-col/protocol'
import type { SignalBackend } from '@e2e-col/signal-cli'
import type { Clock } from '../clock.ts'
import type { SidecarConfig } from '../config.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import { attachmentSend, type AttachmentSend } from './attachment-send.ts'
import { deflateFrame, needsChunks } from './deflate-frame.ts'
import { createSendQueue, type SendQueue } from './queue.ts'
import type { Reachability } from './reachability.ts'
import { createTokenBucket } from './token-bucket.ts'

export interface OutboundOptions {
  readonly backend: SignalBackend
  readonly reach: Reachability
  readonly clock: Clock
  readonly sidecarId: string
  /** The CAPABILITY bits this sidecar uses. */
  readonly features: number
  readonly send: SidecarConfig['send']
  readonly maxBodyBytes: number
  /** Frames smaller than this never go as attachments. */
  readonly attachmentMinBytes: number
  /** Signal's inbound byte budget to pace by (tests shrink it); default {@link INBOUND_BYTES}. */
  readonly inboundBytes?: { ratePerSecond: number; burst: number }
  /** True once the sidecar stops: nothing more is sent. */
  stopped(): boolean
  readonly metrics: Metrics
  readonly logger: Logger
}

/** What a document tells the queue it opens. */
export interface QueueFor {
  readonly docId: string
  readonly groupId: string
  /** True when every member of the group reads all of these CAPABILITY bits. */
  allRead(bits: number): boolean
  /** The ids of the next send, before its first body goes out. @throws to stop the queue unsent */
  beforeSend(messageIds: readonly string[]): void
  /** Ids Signal definitely refused (dropped from the queue). */
  onUnsent(messageIds: readonly string[]): void
}

export interface Outbound {
  /** Opens a document's send queue to its group. */
  open(doc: QueueFor): SendQueue
  /** True once the sidecar stops: nothing more is sent. */
  stopped(): boolean
}

// Signal's attachmentCreate limit is per account (50, one per 1.2 s).
export const UPLOADS = { ratePerSecond: 1 / 1.2, burst: 50 }
/**
 * Signal's `inboundMessageBytes` limit is per recipient: 128 MiB, then about 2,000 bytes a second
 * (open-source server defaults). Every recipient of this account's sends gets at most what the
 * account sends, so one account-wide bucket keeps each of them under it.
 */
export const INBOUND_BYTES = { ratePerSecond: 2000, burst: 128 * 1024 * 1024 }

export function createOutbound(o: OutboundOptions): Outbound {
  const { clock, metrics, send } = o
  const uploads = createTokenBucket({ ...UPLOADS, now: clock.now() })
  const inboundBytes = createTokenBucket({ ...(o.inboundBytes ?? INBOUND_BYTES), now: clock.now() })
  let batchSeq = 0
  const reads = (feature: number): boolean => (o.features & feature) !== 0

  async function deflate(frame: Uint8Array): Promise<Uint8Array> {
    const smaller = await deflateFrame(frame, o.maxBodyBytes)
    if (smaller !== frame) {
      metrics.envelopesDeflated.inc()
      metrics.deflateSavedBytes.inc(frame.byteLength - smaller.byteLength)
    }
    return smaller
  }

  /** The frame as one attachment send, when it is large and every member reads attachments. */
  function asAttachment(doc: QueueFor, frame: Uint8Array): AttachmentSend | undefined {
    if (
      !reads(CAPABILITY.attachments) ||
      frame.byteLength < o.attachmentMinBytes ||
      !needsChunks(frame, o.maxBodyBytes)
    )
      return undefined
    const deflated = (frameFlags(frame) & FLAGS.deflated) !== 0
    const needs = CAPABILITY.attachments | (deflated ? CAPABILITY.deflate : 0)
    if (!doc.allRead(needs) || !uploads.tryTake(clock.now())) return undefined
    try {
      return attachmentSend(frame)
    } catch {
      return undefined // a kind never carried as an attachment
    }
  }

  return {
    stopped: () => o.stopped(),
    open(doc) {
      // Only when every member reads it: an older sidecar drops deflated envelopes.
      const shrink = async (frame: Uint8Array): Promise<Uint8Array> =>
        reads(CAPABILITY.deflate) && doc.allRead(CAPABILITY.deflate) ? deflate(frame) : frame
      return createSendQueue({
        groupId: doc.groupId,
        backend: o.backend,
        maxBodyBytes: o.maxBodyBytes,
        maxQueueBytes: send.maxQueueBytes,
        bucket: createTokenBucket({ ratePerSecond: send.sendsPerSecond, burst: send.burst, now: clock.now() }),
        inboundBytes,
        minIntervalMs: 1000 / send.sendsPerSecond,
        ...(send.compress ? { shrink } : {}),
        attachment: (frame) => asAttachment(doc, frame),
        retry: { attempts: send.attempts, baseMs: send.retryBaseMs, maxMs: send.retryMaxMs },
        now: clock.now,
        sleep: clock.sleep,
        rng: clock.rng,
        newBatchHeader: () => ({
          docId: doc.docId,
          senderId: o.sidecarId,
          messageId: clock.newMessageId(),
          seq: batchSeq++,
        }),
        reach: o.reach,
        beforeSend: (ids) => doc.beforeSend(ids),
        onUnsent: (ids) => doc.onUnsent(ids),
        metrics,
        logger: o.logger,
      })
    },
  }
}
