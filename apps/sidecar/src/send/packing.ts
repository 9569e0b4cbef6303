/**
 * What the front of a group's queue becomes on the wire: its frame compressed (once per
 * envelope), then either one attachment send or bodies packed from the leading frames (bodies.ts).
 * An envelope whose attachment send failed goes as text from then on.
 * @see docs/sidecar.md §4.2
 */
import type { Logger } from '../ops/logger.ts'
import type { AttachmentSend } from './attachment-send.ts'
import type { FairOrder } from './fair-order.ts'
import { packNext, type BatchHeader, type PackedSend } from './bodies.ts'
import type { QueuedEnvelope } from './queue-types.ts'

export interface PackingOptions {
  maxBodyBytes: number
  newBatchHeader: () => BatchHeader
  /** Makes a frame cheaper to send (payload compression); a throw keeps the frame. */
  shrink?: ((frame: Uint8Array) => Promise<Uint8Array>) | undefined
  /** The frame as one attachment send, or `undefined` to send it as text. */
  attachment?: ((frame: Uint8Array) => AttachmentSend | undefined) | undefined
  logger: Logger
}

export interface Packing {
  /** Pins the front envelope and compresses it once; false when `closed()` meanwhile. */
  shrinkFront(order: FairOrder, closed: () => boolean): Promise<boolean>
  /** The front envelope as one attachment send, if it should go that way. */
  asAttachment(front: QueuedEnvelope): AttachmentSend | undefined
  /** Its attachment send failed: the envelope goes as text from now on. */
  textOnly(front: QueuedEnvelope): void
  /** The next send's bodies from the leading frames. @throws ProtocolError for a frame no body can carry */
  pack(items: readonly QueuedEnvelope[]): PackedSend
}

export function createPacking(o: PackingOptions): Packing {
  // Envelopes whose frame `shrink` has seen already.
  const shrunk = new WeakSet<QueuedEnvelope>()
  const asText = new WeakSet<QueuedEnvelope>()
  return {
    async shrinkFront(order, closed) {
      const front = order.items[0]
      if (front !== undefined) order.pin(1)
      if (o.shrink === undefined || front === undefined || shrunk.has(front)) return true
      let frame = front.frame
      try {
        frame = await o.shrink(front.frame)
      } catch (error) {
        o.logger.warn({ err: error }, 'could not compress an envelope; sending it as it is')
      }
      if (closed()) return false
      const next = frame === front.frame ? front : { ...front, frame }
      shrunk.add(next)
      // Only the pump removes items and nothing passes a pinned front, so it is still the same one.
      order.replaceFront(next)
      return true
    },
    asAttachment(front) {
      return o.attachment === undefined || asText.has(front) ? undefined : o.attachment(front.frame)
    },
    textOnly: (front) => void asText.add(front),
    pack: (items) =>
      packNext(
        items.map((i) => i.frame),
        o.maxBodyBytes,
        o.newBatchHeader,
      ),
  }
}
