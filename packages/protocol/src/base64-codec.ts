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
  /**
   * Optional: writes what {@link Base64Codec.decode} would return for `text` into `target` from
   * offset 0, at most `target.length` bytes, and returns how many it wrote. Same leniency allowed; the
   * same checks apply. Lets {@link decodeBase64ViaInto} reuse one buffer instead of allocating per body.
   */
  decodeInto?(text: string, target: Uint8Array): number
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
  const want = codec === undefined ? -1 : nativeByteCount(text, start, end)
  if (codec !== undefined && want >= 0) {
    const bytes = codec.decode(start === 0 && end === text.length ? text : text.slice(start, end))
    if (bytes instanceof Uint8Array && bytes.length === want) {
      // A subclass such as Node's Buffer changes `slice` (a view, not a copy): hand out a plain view.
      return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    }
  }
  return decodeBase64(text, start, end)
}

/**
 * As {@link decodeBase64Via}, but when the codec has `decodeInto` and the bytes fit, they are written
 * into `target` and a view of `target` is returned (valid until `target` is next written); otherwise
 * fresh bytes, exactly as {@link decodeBase64Via}. Same verdicts and error codes either way.
 *
 * @throws ProtocolError as {@link decodeBase64}.
 */
export function decodeBase64ViaInto(
  codec: Base64Codec | undefined,
  text: string,
  start: number,
  end: number,
  target: Uint8Array,
): Uint8Array {
  if (codec?.decodeInto !== undefined) {
    const want = nativeByteCount(text, start, end)
    // A lenient decoder may write garbage into `target` before the count gives it away; harmless,
    // since `target` is the caller's scratch and the exact decoder then answers.
    if (
      want >= 0 &&
      want <= target.length &&
      codec.decodeInto(start === 0 && end === text.length ? text : text.slice(start, end), target) === want
    ) {
      return target.subarray(0, want)
    }
  }
  return decodeBase64Via(codec, text, start, end)
}

/**
 * The byte count canonical `text[start, end)` decodes to when cheap native checks find nothing a
 * lenient decoder would get wrong without shortening its output, else -1 (the exact decoder decides).
 */
function nativeByteCount(text: string, start: number, end: number): number {
  const chars = end - start
  if (asciiProbe === undefined || chars === 0 || chars % 4 !== 0) return -1
  const pads = text.charCodeAt(end - 1) === PAD ? (text.charCodeAt(end - 2) === PAD ? 2 : 1) : 0
  // Canonical padding leaves the unused low bits of the last digit zero.
  const last = base64DigitValue(text.charCodeAt(end - 1 - pads))
  const padBitsClear = pads === 0 || (last < 64 && (last & (pads === 2 ? 0x0f : 0x03)) === 0)
  // Node's decoder reads `-` and `_` as `+` and `/`, without shortening the output.
  if (padBitsClear && absent(text, '-', start, end) && absent(text, '_', start, end) && isAscii(asciiProbe, text)) {
    return (chars / 4) * 3 - pads
  }
  return -1
}
