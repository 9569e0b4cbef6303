/**
 * The one error class of `@e2e-col/protocol`. Callers branch on {@link ProtocolError.code}, never on the
 * message text, which may change. Messages never quote payload bytes, only sizes and offsets.
 *
 * @see docs/protocol.md §3.9 "Error codes"
 */
import { CodedError } from './coded-error.ts'

/** Every stable error code this package throws. Listed and explained in docs/protocol.md §3.9. */
export const PROTOCOL_ERROR_CODES = [
  // envelope decoding
  'PROTO_BAD_MAGIC',
  'PROTO_UNSUPPORTED_VERSION',
  'PROTO_UNKNOWN_KIND',
  'PROTO_UNKNOWN_FLAGS',
  'PROTO_TRUNCATED',
  'PROTO_TRAILING_BYTES',
  'PROTO_NON_CANONICAL_VARINT',
  'PROTO_LENGTH_OVERFLOW',
  'PROTO_SEQ_OVERFLOW',
  'PROTO_PAYLOAD_TOO_LARGE',
  // envelope encoding (caller bugs)
  'PROTO_INVALID_FIELD',
  // bodies
  'PROTO_BODY_FOREIGN',
  'PROTO_BODY_UNSUPPORTED_VERSION',
  'PROTO_BODY_EMPTY',
  'PROTO_BODY_WHITESPACE',
  'PROTO_BODY_NOT_CANONICAL',
  'PROTO_BODY_TOO_LARGE',
  // chunking and reassembly
  'PROTO_BOUNDARY_TOO_SMALL',
  'PROTO_LOCAL_ONLY',
  'PROTO_WRONG_KIND',
  'PROTO_CHUNK_MALFORMED',
  'PROTO_CHUNK_CONFLICT',
  'PROTO_CHUNK_INTEGRITY',
  'PROTO_CHUNK_TOO_LARGE',
  // batches
  'PROTO_BATCH_EMPTY',
  'PROTO_BATCH_NESTED',
  'PROTO_BATCH_TOO_LARGE',
  'PROTO_BATCH_MALFORMED',
  // health payloads and attachment references
  'PROTO_HEALTH_MALFORMED',
  'PROTO_ATTACHMENT_MALFORMED',
  'PROTO_ATTACHMENT_INTEGRITY',
  // configuration
  'PROTO_INVALID_OPTION',
] as const

/** A stable, machine-readable reason for a {@link ProtocolError}. */
export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number]

/** Thrown by every codec in this package for bad input; nothing else is ever thrown for input. */
export class ProtocolError extends CodedError<ProtocolErrorCode> {
  override readonly name = 'ProtocolError'
}

/** True when `value` is a {@link ProtocolError}, judged by shape so it works across package copies. */
export function isProtocolError(value: unknown): value is ProtocolError {
  if (!(value instanceof Error) || value.name !== 'ProtocolError') return false
  const code: unknown = (value as { code?: unknown }).code
  return typeof code === 'string' && (PROTOCOL_ERROR_CODES as readonly string[]).includes(code)
}
