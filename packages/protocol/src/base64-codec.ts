/**
 * A pluggable platform base64 codec for bodies. The portable encoder/decoder in `base64.ts` is
 * correct everywhere but several times slower than a native one, so a host that has a native codec
 * (the sidecar on Node: `Buffer`) can hand it in, per call or once with `usePlatformCodecs`.
 *
 * Native decoders are lenient: Node's `Buffer.from(s, 'base64')` skips foreign characters and
 * whitespace, stops at a stray `=`, accepts the URL-safe `-` and `_`, and maps a character above
 * U+00FF to its low byte. So a plugged-in decoder is never trusted on its own: {@link decodeBase64Via}
 * accepts its output only when cheap checks prove the text canonical (ASCII only, no `-`/`_`, length a
 * multiple of 4, zero pad bits, and exactly the byte count the length and padding promise; a skipped
 * or stray character always shortens the output). Anything else is re-decoded by the portable strict
 * decoder, which throws the precise error, so verdicts and codes are the same with or without a codec.
 */
import { base64DigitValue, base64Length, decodeBase64, encodeBase64 } from './base64.ts'
import { ProtocolError } from './errors.ts'

/** A platform base64 codec: standard alphabet, padded. Only its speed is relied on, not its strictness. */
export interface Base64Codec {
  /** Standard padded base64 of `bytes` (which may be a view into a larger buffer). */
  encode(bytes: Uint8Array): string
  /** The bytes of base64 `text`; may be lenient (see the module comment), must not throw on garbage. */
  decode(text: string): Uint8Array
}

/**
 * Encodes `bytes[start, end)` with `codec` (or the portable encoder when it is `undefined`).
 *
 * @throws ProtocolError `PROTO_INVALID_OPTION` when the codec's output has the wrong length (an
 *   unpadded or otherwise foreign codec), since its bodies would not match the size arithmetic.
 */
export function encodeBase64Via(codec: Base64Codec | undefined, bytes: Uint8Array, start: number, end: number): string {
  if (codec === undefined) return encodeBase64(bytes, start, end)
  const text = codec.encode(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end))
  if (typeof text !== 'string' || text.length !== base64Length(end - start)) {
    throw new ProtocolError('PROTO_INVALID_OPTION', 'the base64 codec did not produce standard padded base64')
  }
  return text
}

const PAD = 0x3d // '='

interface AsciiProbe {
  encodeInto(text: string, into: Uint8Array): { read: number; written: number }
}
const encoderClass = (globalThis as unknown as { TextEncoder?: new () => AsciiProbe }).TextEncoder
const asciiProbe = encoderClass === undefined ? undefined : new encoderClass()
// Reused target of the ASCII probe; bodies are small, a larger text gets a one-off buffer.
const PROBE_BYTES = 8192
let probeBuffer: Uint8Array | undefined

/**
 * True when every character of `text` is ASCII, checked natively: UTF-8 takes 2+ bytes for any other
 * character, so encoding stops short. It probes the whole text, since slicing first would cost a
 * copy: a non-ASCII character before `start` only sends the text down the slow, exact path.
 */
function isAscii(probe: AsciiProbe, text: string): boolean {
  const chars = text.length
  probeBuffer ??= new Uint8Array(PROBE_BYTES)
  // A larger target is fine: encoding stops at the end of the text.
  const into = chars <= PROBE_BYTES ? probeBuffer : new Uint8Array(chars)
  const { read, written } = probe.encodeInto(text, into)
  return read === chars && written === chars
}

/** True when `text[start, end)` lacks `char` (a native search, not a JS loop). */
function absent(text: string, char: string, start: number, end: number): boolean {
  const at = text.indexOf(char, start)
  return at === -1 || at >= end
}

/**
 * Decodes the canonical padded base64 in `text[start, end)` with `codec`, with exactly the verdicts and
 * error codes of the portable {@link decodeBase64} (which runs whenever a fast check fails).
 *
 * @throws ProtocolError as {@link decodeBase64}.
 */
export function decodeBase64Via(codec: Base64Codec | undefined, text: string, start: number, end: number): Uint8Array {
  const chars = end - start
  if (codec === undefined || asciiProbe === undefined || chars === 0 || chars % 4 !== 0) return decodeBase64(text, start, end)
  const pads = text.charCodeAt(end - 1) === PAD ? (text.charCodeAt(end - 2) === PAD ? 2 : 1) : 0
  // Canonical padding leaves the unused low bits of the last digit zero.
  const last = base64DigitValue(text.charCodeAt(end - 1 - pads))
  const padBitsClear = pads === 0 || (last < 64 && (last & (pads === 2 ? 0x0f : 0x03)) === 0)
  // Node's decoder reads `-` and `_` as `+` and `/`, without shortening the output.
  if (padBitsClear && absent(text, '-', start, end) && absent(text, '_', start, end) && isAscii(asciiProbe, text)) {
    const bytes = codec.decode(start === 0 && end === text.length ? text : text.slice(start, end))
    if (bytes instanceof Uint8Array && bytes.length === (chars / 4) * 3 - pads) {
      // A subclass such as Node's Buffer changes `slice` (a view, not a copy): hand out a plain view.
      return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    }
  }
  return decodeBase64(text, start, end)
}
