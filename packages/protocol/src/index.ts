/**
 * `@e2e-col/protocol`: the pure wire codecs shared by the browser client, the sidecar and the
 * contract tests. No I/O, no timers, no platform APIs: time and randomness are arguments.
 *
 * @see docs/protocol.md §3 "Message format on the wire"
 */
export { CodedError } from './coded-error.ts'
export { ProtocolError, PROTOCOL_ERROR_CODES, isProtocolError, type ProtocolErrorCode } from './errors.ts'
export { KINDS, KIND_NAMES, FLAGS, KNOWN_FLAGS_MASK, kindFromCode, isLocalOnly, type Kind } from './kinds.ts'
export { isUuid, isMessageId, newMessageId, ID_BYTES } from './ids.ts'
export { CLOSE_CODES, type CloseCode } from './close-codes.ts'
export { REFUSAL_CODES, type RefusalCode, type WireErrorCode } from './refusal-codes.ts'
export {
  encodeEnvelope,
  decodeEnvelope,
  envelopeByteLength,
  MAGIC,
  PROTOCOL_VERSION,
  FIXED_HEADER_BYTES,
  FLAGS_OFFSET,
  MAX_HEADER_BYTES,
  frameFlags,
  MAX_PAYLOAD_LENGTH,
  DEFAULT_MAX_PAYLOAD_BYTES,
  type Envelope,
  type DecodeEnvelopeOptions,
} from './envelope.ts'
export {
  encodeBody,
  decodeBody,
  decodeBodyInto,
  bodyByteLength,
  bodyCapacity,
  bodyLengthFor,
  BODY_PREFIX,
  BODY_NAMESPACE,
  DEFAULT_MAX_BODY_CHARS,
  type DecodeBodyOptions,
  type EncodeBodyOptions,
} from './body.ts'
export { crc32 } from './crc32.ts'
export type { Base64Codec } from './base64-codec.ts'
export { usePlatformCodecs, type PlatformCodecs, type Crc32Function } from './platform-codecs.ts'
export {
  chunkFrame,
  encodeBodies,
  decodeChunk,
  smallestBoundary,
  leastChunkData,
  CHUNK_META_BYTES,
  type ChunkOptions,
  type ChunkPart,
} from './chunking.ts'
export {
  packBatch,
  unpackBatch,
  MAX_BATCH_ENTRIES,
  type BatchHeader,
  type PackBatchOptions,
  type PackedBatch,
} from './batch.ts'
export {
  createReassembler,
  type Reassembler,
  type ReassemblerOptions,
  type PushResult,
  type Eviction,
  type EvictionReason,
} from './reassembler.ts'
export { createDedupWindow, type DedupWindow, type DedupWindowOptions } from './dedup.ts'
export {
  encodeHealth,
  decodeHealth,
  canRead,
  HEALTH_FORMAT,
  HEALTH_TAGS,
  MAX_HEALTH_RECORDS,
  MAX_ANNOUNCED_AUTHORS,
  MAX_CLIENT_ID,
  CAPABILITY,
  type Health,
  type Capabilities,
} from './health.ts'
export {
  encodeAttachmentRef,
  decodeAttachmentRef,
  openAttachment,
  attachmentFileName,
  ATTACHMENT_CONTENT_TYPE,
  ATTACHMENT_REF_PAYLOAD_BYTES,
  SHA256_BYTES,
  type AttachmentRef,
} from './attachment-ref.ts'
export {
  encodeDeliveryNote,
  decodeDeliveryNote,
  SIGNAL_STATES,
  MAX_SENT_IDS,
  MAX_REASON_CHARS,
  type DeliveryNote,
  type DocRole,
  type SignalState,
} from './delivery.ts'
export {
  checkText,
  shownText,
  escapeControls,
  MAX_GRAPHEME_UNITS,
  type TextBounds,
  type TextProblem,
  foldName,
} from './untrusted-text.ts'
export {
  AUTHOR_TAG_MIN,
  AUTHOR_TAG_MAX,
  CLIENT_ID_RANDOM_BITS,
  MAX_DERIVED_CLIENT_ID,
  authorTagFromHash,
  authorTagOf,
  clientIdFor,
  isAuthorTag,
} from './author-id.ts'
