/**
 * `java.util.Base64.getDecoder().decode(String)` with its exact failure texts, for the errors the
 * real daemon words after it (`Invalid group id: Failed to decode groupId (must be base64) "x":
 * Illegal base64 character 21`). The string is first read as ISO-8859-1 bytes, so a character
 * beyond U+00FF is `?` (3f) and U+0080–U+00FF are negative Java bytes (`-3d`).
 * @see OpenJDK `java.util.Base64.Decoder.decode0`
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** The decoded bytes, or the IllegalArgumentException message Java throws. */
export type JavaBase64 = { ok: true; bytes: Buffer } | { ok: false; message: string }

/** Java's signed byte for one character of the ISO-8859-1 view, as `Integer.toString(b, 16)` prints it. */
function javaByteHex(code: number): string {
  const byte = code > 0xff ? 0x3f : code
  return (byte >= 0x80 ? byte - 0x100 : byte).toString(16)
}

export function decodeJavaBase64(text: string): JavaBase64 {
  if (text.length === 0) return { ok: true, bytes: Buffer.alloc(0) }
  if (text.length < 2) return { ok: false, message: 'Input byte[] should at least have 2 bytes for base64 bytes' }
  const out: number[] = []
  let bits = 0
  let shift = 18
  let at = 0
  while (at < text.length) {
    const code = text.charCodeAt(at)
    at += 1
    const value = ALPHABET.indexOf(text[at - 1] ?? '')
    if (value < 0) {
      if (code === 0x3d) {
        // '=': only `xx==` or `xxx=` end a unit correctly.
        if ((shift === 6 && (at === text.length || text.charCodeAt(at++) !== 0x3d)) || shift === 18)
          return { ok: false, message: 'Input byte array has wrong 4-byte ending unit' }
        break
      }
      return { ok: false, message: `Illegal base64 character ${javaByteHex(code)}` }
    }
    bits |= value << shift
    shift -= 6
    if (shift < 0) {
      out.push((bits >> 16) & 0xff, (bits >> 8) & 0xff, bits & 0xff)
      shift = 18
      bits = 0
    }
  }
  if (shift === 6) out.push((bits >> 16) & 0xff)
  else if (shift === 0) out.push((bits >> 16) & 0xff, (bits >> 8) & 0xff)
  else if (shift === 12) return { ok: false, message: 'Last unit does not have enough valid bits' }
  if (at < text.length) return { ok: false, message: `Input byte array has incorrect ending byte at ${at}` }
  return { ok: true, bytes: Buffer.from(out) }
}
