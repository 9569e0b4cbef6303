/**
 * Signal message bodies: `e2e-col:v1:` followed by the standard padded base64 of one frame. Text that
 * does not start with `e2e-col:` is somebody's ordinary chat message (`PROTO_BODY_FOREIGN`), which a
 * receiver skips rather than reports.
 *
 * ```
 * body := "e2e-col:v1:" • base64(frame)      (frame non-empty, canonical base64, no whitespace)
 * ```
 *
 * @see docs/protocol.md §3.5 "Bodies"
 */
import { base64Capacity, base64Length } from './base64.ts'
import { decodeBase64Via, decodeBase64ViaInto, encodeBase64Via, type Base64Codec } from './base64-codec.ts'
import { ProtocolError } from './errors.ts'
import { base64For } from './platform-codecs.ts'

/** The namespace every e2e-col body starts with, whatever its version. */
export const BODY_NAMESPACE = 'e2e-col:'
/** The full prefix of a v1 body. */
export const BODY_PREFIX = 'e2e-col:v1:'
/** Default for {@link DecodeBodyOptions.maxBodyChars}: 1 Mi characters. */
export const DEFAULT_MAX_BODY_CHARS = 1024 * 1024

/** Limits applied while decoding a body. */
export interface DecodeBodyOptions {
  /** Longest accepted body in UTF-16 code units (default {@link DEFAULT_MAX_BODY_CHARS}). */
  readonly maxBodyChars?: number
  /**
   * Native base64 to decode with (default: the one set by `usePlatformCodecs`, else the portable
   * decoder). Verdicts and error codes are the same either way.
   */
  readonly base64?: Base64Codec
}

/** Options of {@link encodeBody}. */
export interface EncodeBodyOptions {
  /** Native base64 to encode with (default: the one set by `usePlatformCodecs`, else portable). */
  readonly base64?: Base64Codec
}

/**
 * Encodes `bytes[start, end)` as one v1 body. The body is pure ASCII: its UTF-8 size is its length.
 *
 * @throws ProtocolError `PROTO_INVALID_OPTION` when a plugged-in codec yields text of the wrong length.
 */
export function encodeBody(bytes: Uint8Array, start = 0, end = bytes.length, options: EncodeBodyOptions = {}): string {
  return BODY_PREFIX + encodeBase64Via(base64For(options.base64), bytes, start, end)
}

/** UTF-8 size of a body made from `byteLength` bytes. */
export function bodyLengthFor(byteLength: number): number {
  return BODY_PREFIX.length + base64Length(byteLength)
}

/** The most bytes one body of at most `maxBodyBytes` UTF-8 bytes can carry (0 if none). */
export function bodyCapacity(maxBodyBytes: number): number {
  return base64Capacity(maxBodyBytes - BODY_PREFIX.length)
}

/**
 * Decodes one v1 body back to its bytes.
 *
 * @throws ProtocolError `PROTO_BODY_FOREIGN` (no `e2e-col:` namespace), `PROTO_BODY_UNSUPPORTED_VERSION`
 *   (namespace present, version not `v1`), `PROTO_BODY_TOO_LARGE`, `PROTO_BODY_EMPTY`,
 *   `PROTO_BODY_WHITESPACE`, `PROTO_BODY_NOT_CANONICAL`, or `PROTO_INVALID_OPTION`.
 */
export function decodeBody(text: string, options: DecodeBodyOptions = {}): Uint8Array {
  checkBody(text, options)
  return decodeBase64Via(base64For(options.base64), text, BODY_PREFIX.length, text.length)
}

/**
 * {@link decodeBody} for bytes consumed at once, such as a chunk pushed into a reassembler (which
 * copies what it keeps): with a codec that has `decodeInto` (the sidecar's), the bytes are written
 * into `scratch` and a view of it is returned, valid only until `scratch` is next written, which saves
 * allocating fresh memory per body. Without one, or when the bytes do not fit, it returns fresh bytes.
 * Same verdicts and error codes as {@link decodeBody}.
 *
 * @throws ProtocolError as {@link decodeBody}; `PROTO_INVALID_OPTION` when `scratch` is not a Uint8Array.
 */
export function decodeBodyInto(text: string, scratch: Uint8Array, options: DecodeBodyOptions = {}): Uint8Array {
  if (!(scratch instanceof Uint8Array)) throw new ProtocolError('PROTO_INVALID_OPTION', 'scratch must be a Uint8Array')
  checkBody(text, options)
  return decodeBase64ViaInto(base64For(options.base64), text, BODY_PREFIX.length, text.length, scratch)
}

function checkBody(text: string, options: DecodeBodyOptions): void {
  const maxBodyChars = options.maxBodyChars ?? DEFAULT_MAX_BODY_CHARS
  if (!Number.isSafeInteger(maxBodyChars) || maxBodyChars < BODY_PREFIX.length) {
    throw new ProtocolError('PROTO_INVALID_OPTION', `maxBodyChars must be an integer of at least ${BODY_PREFIX.length}`)
  }
  if (typeof text !== 'string' || !text.startsWith(BODY_NAMESPACE)) {
    throw new ProtocolError('PROTO_BODY_FOREIGN', 'text is not an e2e-col body')
  }
  if (!text.startsWith(BODY_PREFIX))
    throw new ProtocolError('PROTO_BODY_UNSUPPORTED_VERSION', 'e2e-col body of an unsupported version')
  if (text.length > maxBodyChars) {
    throw new ProtocolError(
      'PROTO_BODY_TOO_LARGE',
      `body of ${text.length} characters exceeds the limit of ${maxBodyChars}`,
    )
  }
  if (text.length === BODY_PREFIX.length) throw new ProtocolError('PROTO_BODY_EMPTY', 'body carries no payload')
}

/**
 * The UTF-8 byte length of `text`, the unit Signal's body limit is measured in. A lone surrogate
 * counts 3 bytes, as its U+FFFD replacement does.
 */
export function bodyByteLength(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}
