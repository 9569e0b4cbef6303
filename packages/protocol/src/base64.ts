/**
 * Standard padded base64 (RFC 4648 §4) in pure code, with a strict decoder: only the one canonical
 * encoding of a byte string is accepted (no whitespace, no missing or extra `=`, zero pad bits), so a
 * body maps to exactly one frame. Hand-written because platform codecs differ (Node's `Buffer` and
 * `atob` both accept non-canonical input) and this package may use neither.
 *
 * Speed: moving between ASCII bytes and strings one character at a time dominates the cost, so the
 * WHATWG Encoding API (`TextEncoder`/`TextDecoder`, present in browsers, Node, Deno and workers) does
 * that step when the platform has it; it is looked up on `globalThis`, not imported, and a portable
 * path takes over where it is missing.
 */
import { ProtocolError } from './errors.ts'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const PAD = 0x3d // '='
const INVALID = 0xff
// Two 6-bit digits per table entry halves the lookups on the encode path.
const PAIR_CODES = new Uint16Array(4096)
const DIGIT_VALUE = new Uint8Array(256).fill(INVALID)
for (let i = 0; i < 64; i++) DIGIT_VALUE[ALPHABET.charCodeAt(i)] = i
for (let i = 0; i < 4096; i++) PAIR_CODES[i] = (ALPHABET.charCodeAt(i >> 6) << 8) | ALPHABET.charCodeAt(i & 63)

interface EncodingApi {
  readonly TextEncoder?: new () => { encodeInto(text: string, into: Uint8Array): { read: number; written: number } }
  readonly TextDecoder?: new () => { decode(bytes: Uint8Array): string }
}
const encodingApi = globalThis as unknown as EncodingApi
const textEncoder = encodingApi.TextEncoder === undefined ? undefined : new encodingApi.TextEncoder()
const textDecoder = encodingApi.TextDecoder === undefined ? undefined : new encodingApi.TextDecoder()

// String.fromCharCode.apply takes one argument per char; stay well below engine argument limits.
const STRING_SLICE = 8192

/** The 6-bit value of the alphabet character with this UTF-16 code, or 0xff for any other. */
export function base64DigitValue(code: number): number {
  return DIGIT_VALUE[code] ?? INVALID
}

/** Length of the padded base64 text for `byteLength` bytes. */
export function base64Length(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3)
}

/** Largest byte count whose padded base64 fits in `chars` characters. */
export function base64Capacity(chars: number): number {
  return Math.floor(Math.max(0, chars) / 4) * 3
}

function asciiToString(codes: Uint8Array): string {
  // ASCII is valid UTF-8, so the default decoder maps these bytes one-to-one to characters.
  if (textDecoder !== undefined) return textDecoder.decode(codes)
  let out = ''
  for (let i = 0; i < codes.length; i += STRING_SLICE) {
    out += String.fromCharCode.apply(null, codes.subarray(i, i + STRING_SLICE) as unknown as number[])
  }
  return out
}

/** The UTF-16 code units of `text[start, end)` as bytes, or `undefined` if any is not ASCII. */
function asciiBytes(text: string, start: number, end: number): Uint8Array | undefined {
  const out = new Uint8Array(end - start)
  if (textEncoder !== undefined) {
    const { read, written } = textEncoder.encodeInto(
      start === 0 && end === text.length ? text : text.slice(start, end),
      out,
    )
    // A non-ASCII character takes 2+ bytes, so it shows up as a short read.
    return read === out.length && written === out.length ? out : undefined
  }
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i)
    if (code > 0x7f) return undefined
    out[i - start] = code
  }
  return out
}

/** Encodes `bytes[start, end)` as standard padded base64. */
export function encodeBase64(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const length = end - start
  const out = new Uint8Array(base64Length(length))
  let o = 0
  let i = start
  const whole = start + length - (length % 3)
  for (; i < whole; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0)
    const hi = PAIR_CODES[n >>> 12] ?? 0
    const lo = PAIR_CODES[n & 0xfff] ?? 0
    out[o] = hi >> 8
    out[o + 1] = hi & 0xff
    out[o + 2] = lo >> 8
    out[o + 3] = lo & 0xff
    o += 4
  }
  const rest = end - i
  if (rest > 0) {
    const n = ((bytes[i] ?? 0) << 16) | (rest === 2 ? (bytes[i + 1] ?? 0) << 8 : 0)
    const hi = PAIR_CODES[n >>> 12] ?? 0
    out[o] = hi >> 8
    out[o + 1] = hi & 0xff
    out[o + 2] = rest === 2 ? ALPHABET.charCodeAt((n >> 6) & 63) : PAD
    out[o + 3] = PAD
  }
  return asciiToString(out)
}

function isWhitespace(code: number): boolean {
  // ASCII whitespace plus the Unicode spaces a copy/paste or a messenger might insert.
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  )
}

/** Throws the precise error for the first character of `text[start, end)` outside the alphabet. */
function rejectFirstBadCharacter(text: string, start: number, end: number): never {
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i)
    if (code < 256 && DIGIT_VALUE[code] !== INVALID) continue
    if (isWhitespace(code)) throw new ProtocolError('PROTO_BODY_WHITESPACE', `body has whitespace at character ${i}`)
    throw new ProtocolError('PROTO_BODY_NOT_CANONICAL', `body has a non-base64 character at ${i}`)
  }
  throw new ProtocolError('PROTO_BODY_NOT_CANONICAL', 'body is not canonical base64')
}

/**
 * Decodes the canonical padded base64 in `text[start, end)`.
 *
 * @throws ProtocolError `PROTO_BODY_WHITESPACE` for any whitespace, `PROTO_BODY_NOT_CANONICAL` for a
 *   foreign character, a length not a multiple of 4, misplaced or missing padding, or non-zero pad bits.
 */
export function decodeBase64(text: string, start = 0, end = text.length): Uint8Array {
  const chars = end - start
  const ascii = asciiBytes(text, start, end)
  if (ascii === undefined) rejectFirstBadCharacter(text, start, end)
  if (chars % 4 !== 0) {
    // Report whitespace first: it is the likelier cause of a bad length.
    for (let i = start; i < end; i++) if (isWhitespace(text.charCodeAt(i))) rejectFirstBadCharacter(text, i, end)
    throw new ProtocolError('PROTO_BODY_NOT_CANONICAL', `base64 length ${chars} is not a multiple of 4`)
  }
  if (chars === 0) return new Uint8Array(0)
  const pads = ascii[chars - 1] === PAD ? (ascii[chars - 2] === PAD ? 2 : 1) : 0
  const out = new Uint8Array((chars / 4) * 3 - pads)
  const fullChars = pads === 0 ? chars : chars - 4
  // Hot loop: OR every digit into `seen` and validate once at the end; INVALID (0xff) sets bits 6-7.
  let seen = 0
  let o = 0
  for (let i = 0; i < fullChars; i += 4) {
    const a = DIGIT_VALUE[ascii[i] ?? 0] ?? INVALID
    const b = DIGIT_VALUE[ascii[i + 1] ?? 0] ?? INVALID
    const c = DIGIT_VALUE[ascii[i + 2] ?? 0] ?? INVALID
    const d = DIGIT_VALUE[ascii[i + 3] ?? 0] ?? INVALID
    seen |= a | b | c | d
    const n = (a << 18) | (b << 12) | (c << 6) | d
    out[o] = n >>> 16
    out[o + 1] = (n >> 8) & 0xff
    out[o + 2] = n & 0xff
    o += 3
  }
  if (pads > 0) {
    const a = DIGIT_VALUE[ascii[fullChars] ?? 0] ?? INVALID
    const b = DIGIT_VALUE[ascii[fullChars + 1] ?? 0] ?? INVALID
    const c = pads === 1 ? (DIGIT_VALUE[ascii[fullChars + 2] ?? 0] ?? INVALID) : 0
    seen |= a | b | c
    // Misplaced '=' inside the text is INVALID in DIGIT_VALUE, so it fails the `seen` check below.
    if ((seen & 0xc0) === 0 && (pads === 2 ? b & 0x0f : c & 0x03) !== 0) {
      throw new ProtocolError('PROTO_BODY_NOT_CANONICAL', 'base64 pad bits are not zero')
    }
    out[o] = (a << 2) | (b >> 4)
    if (pads === 1) out[o + 1] = ((b & 0x0f) << 4) | (c >> 2)
  }
  if ((seen & 0xc0) !== 0) rejectFirstBadCharacter(text, start, start + chars - pads)
  return out
}
