/**
 * Attachment references: an envelope too large for a few bodies travels as one Signal attachment
 * holding its whole frame, and the message's text body is a short `attachment` envelope that names
 * it. The reference repeats the carried frame's header (doc, sender, message id, seq, flags), so a
 * receiver deduplicates before it fetches anything, and gives its length and SHA-256, so a receiver
 * bounds the fetch before asking and checks the bytes before using them:
 *
 * ```
 * attachment payload := u32(totalLength) • sha256(frame)[32]
 * ```
 *
 * Hashing is the caller's (Node's `crypto`, WebCrypto): this package stays pure and synchronous.
 *
 * @see docs/protocol.md §3.13 "Attachment references"
 */
import { readU32, writeU32 } from './byte-reader.ts'
import {
  decodeEnvelope,
  encodeEnvelope,
  MAX_PAYLOAD_LENGTH,
  type DecodeEnvelopeOptions,
  type Envelope,
} from './envelope.ts'
import { ProtocolError } from './errors.ts'
import { isLocalOnly, type Kind } from './kinds.ts'

/** Bytes of a SHA-256 digest. */
export const SHA256_BYTES = 32
/** Length of an `attachment` envelope's payload. */
export const ATTACHMENT_REF_PAYLOAD_BYTES = 4 + SHA256_BYTES
/** The content type e2e-col attachments are sent with. */
export const ATTACHMENT_CONTENT_TYPE = 'application/octet-stream'

/** The file name an attachment carrying message `messageId` is sent with (receivers never trust it). */
export function attachmentFileName(messageId: string): string {
  return `e2e-col-${messageId}.bin`
}

/** What an `attachment` envelope names. */
export interface AttachmentRef {
  /** Length of the carried frame in bytes. */
  readonly totalLength: number
  /** SHA-256 of the carried frame. */
  readonly sha256: Uint8Array
}

// Kinds that are packaging themselves, or never leave the machine, are never carried.
const NOT_CARRIED: ReadonlySet<Kind> = new Set<Kind>(['chunk', 'batch', 'attachment'])

function checkCarried(kind: Kind): void {
  if (isLocalOnly(kind)) throw new ProtocolError('PROTO_LOCAL_ONLY', `${kind} envelopes never leave the machine`)
  if (NOT_CARRIED.has(kind))
    throw new ProtocolError('PROTO_WRONG_KIND', `a ${kind} envelope is not carried as an attachment`)
}

/**
 * The `attachment` envelope (encoded) referring to `frame`, given the frame's SHA-256.
 * @throws ProtocolError `PROTO_LOCAL_ONLY`, `PROTO_WRONG_KIND` for a chunk, batch or attachment,
 *   `PROTO_INVALID_FIELD` for a digest that is not 32 bytes, or any decoding code for a bad frame.
 */
export function encodeAttachmentRef(frame: Uint8Array, sha256: Uint8Array): Uint8Array {
  const env = decodeEnvelope(frame, { maxPayloadBytes: MAX_PAYLOAD_LENGTH })
  checkCarried(env.kind)
  if (!(sha256 instanceof Uint8Array) || sha256.length !== SHA256_BYTES)
    throw new ProtocolError('PROTO_INVALID_FIELD', 'sha256 must be 32 bytes')
  const payload = new Uint8Array(ATTACHMENT_REF_PAYLOAD_BYTES)
  writeU32(payload, 0, frame.length)
  payload.set(sha256, 4)
  return encodeEnvelope({ ...env, kind: 'attachment', payload })
}

/**
 * Reads an `attachment` envelope's payload.
 * @throws ProtocolError `PROTO_WRONG_KIND` for another kind, `PROTO_ATTACHMENT_MALFORMED` for a
 *   payload that is not 36 bytes or a zero length.
 */
export function decodeAttachmentRef(envelope: Envelope): AttachmentRef {
  if (envelope.kind !== 'attachment')
    throw new ProtocolError('PROTO_WRONG_KIND', `expected an attachment envelope, got ${envelope.kind}`)
  const p = envelope.payload
  if (p.length !== ATTACHMENT_REF_PAYLOAD_BYTES)
    throw new ProtocolError(
      'PROTO_ATTACHMENT_MALFORMED',
      `attachment payload is ${p.length} bytes, not ${ATTACHMENT_REF_PAYLOAD_BYTES}`,
    )
  const totalLength = readU32(p, 0)
  if (totalLength === 0) throw new ProtocolError('PROTO_ATTACHMENT_MALFORMED', 'attachment names an empty frame')
  return { totalLength, sha256: p.subarray(4) }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Checks fetched attachment bytes against their reference and decodes the carried envelope.
 * `sha256` is the digest the caller computed over `bytes`.
 * @throws ProtocolError `PROTO_ATTACHMENT_INTEGRITY` when the length, digest or header (doc, sender,
 *   message id, seq, flags) differ or the frame is not a carried kind; `PROTO_ATTACHMENT_MALFORMED`
 *   for a bad reference; any decoding code for bytes that match but do not decode (a sender bug).
 */
export function openAttachment(
  ref: Envelope,
  bytes: Uint8Array,
  sha256: Uint8Array,
  options: DecodeEnvelopeOptions = {},
): Envelope {
  const named = decodeAttachmentRef(ref)
  if (bytes.length !== named.totalLength)
    throw new ProtocolError(
      'PROTO_ATTACHMENT_INTEGRITY',
      `attachment is ${bytes.length} bytes, the reference says ${named.totalLength}`,
    )
  if (!sameBytes(sha256, named.sha256))
    throw new ProtocolError('PROTO_ATTACHMENT_INTEGRITY', 'attachment SHA-256 differs from the reference')
  const env = decodeEnvelope(bytes, options)
  if (
    env.docId !== ref.docId ||
    env.senderId !== ref.senderId ||
    env.messageId !== ref.messageId ||
    env.seq !== ref.seq ||
    env.flags !== ref.flags
  ) {
    throw new ProtocolError('PROTO_ATTACHMENT_INTEGRITY', 'carried envelope header differs from the reference')
  }
  if (isLocalOnly(env.kind) || NOT_CARRIED.has(env.kind))
    throw new ProtocolError('PROTO_ATTACHMENT_INTEGRITY', `a ${env.kind} envelope cannot be carried`)
  return env
}
