/**
 * The send side of attachment references (contract §3.13, §4.2): one large frame becomes one
 * Signal message whose text body is the short `attachment` envelope naming it (length, SHA-256)
 * and whose one attachment is the frame itself, as a data URI (the daemon reads no file).
 */
import { createHash } from 'node:crypto'
import {
  ATTACHMENT_CONTENT_TYPE,
  attachmentFileName,
  decodeEnvelope,
  encodeAttachmentRef,
  encodeBody,
  MAX_PAYLOAD_LENGTH,
} from '@e2e-col/protocol'

/** What one attachment send carries. */
export interface AttachmentSend {
  readonly body: string
  readonly attachments: readonly string[]
}

export const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest())

/** The body and data URI that carry `frame` as one attachment. @throws ProtocolError for a frame that is never carried. */
export function attachmentSend(frame: Uint8Array): AttachmentSend {
  const ref = encodeAttachmentRef(frame, sha256(frame))
  const { messageId } = decodeEnvelope(ref, { maxPayloadBytes: MAX_PAYLOAD_LENGTH })
  const uri = `data:${ATTACHMENT_CONTENT_TYPE};filename=${attachmentFileName(messageId)};base64,${Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).toString('base64')}`
  return { body: encodeBody(ref), attachments: [uri] }
}
