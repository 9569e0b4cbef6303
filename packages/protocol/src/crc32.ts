/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, the zlib/PNG checksum) over a byte range,
 * computed slice-by-8. It checks that a reassembled frame is the frame that was chunked. Signal
 * already authenticates every body, so this guards against mixing, truncation and bugs, not forgery.
 * Known answer: `crc32("123456789") === 0xcbf43926`.
 */

// TABLES[k][b] is the CRC of byte b followed by k zero bytes; slice-by-8 folds 8 bytes per step.
const TABLES: Uint32Array[] = []
{
  const t0 = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t0[n] = c >>> 0
  }
  TABLES.push(t0)
  for (let k = 1; k < 8; k++) {
    const prev = TABLES[k - 1] ?? t0
    const t = new Uint32Array(256)
    for (let n = 0; n < 256; n++) {
      const p = prev[n] ?? 0
      t[n] = ((t0[p & 0xff] ?? 0) ^ (p >>> 8)) >>> 0
    }
    TABLES.push(t)
  }
}
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [
  Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array,
]

/** The CRC-32 of `bytes[start, end)` as an unsigned 32-bit integer. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = 0xffffffff
  let i = start
  for (; i + 8 <= end; i += 8) {
    const a = c ^ ((bytes[i] ?? 0) | ((bytes[i + 1] ?? 0) << 8) | ((bytes[i + 2] ?? 0) << 16) | ((bytes[i + 3] ?? 0) << 24))
    c =
      (T7[a & 0xff] ?? 0) ^ (T6[(a >>> 8) & 0xff] ?? 0) ^ (T5[(a >>> 16) & 0xff] ?? 0) ^ (T4[a >>> 24] ?? 0) ^
      (T3[bytes[i + 4] ?? 0] ?? 0) ^ (T2[bytes[i + 5] ?? 0] ?? 0) ^ (T1[bytes[i + 6] ?? 0] ?? 0) ^ (T0[bytes[i + 7] ?? 0] ?? 0)
  }
  for (; i < end; i++) c = (T0[(c ^ (bytes[i] ?? 0)) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
