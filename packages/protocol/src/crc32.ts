/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, the zlib/PNG checksum) over a byte range,
 * computed slice-by-16. It checks that a reassembled frame is the frame that was chunked. Signal
 * already authenticates every body, so this guards against mixing, truncation and bugs, not forgery.
 * Known answer: `crc32("123456789") === 0xcbf43926`.
 */

// Sixteen 256-entry tables in one array: entry k·256 + b is the CRC of byte b followed by k zero
// bytes, so one step folds 16 input bytes. One flat array keeps every lookup a single indexed load.
const SLICES = 16
const TABLE = new Uint32Array(SLICES * 256)
for (let n = 0; n < 256; n++) {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  TABLE[n] = c >>> 0
}
for (let k = 1; k < SLICES; k++) {
  for (let n = 0; n < 256; n++) {
    const p = TABLE[(k - 1) * 256 + n] ?? 0
    TABLE[k * 256 + n] = ((TABLE[p & 0xff] ?? 0) ^ (p >>> 8)) >>> 0
  }
}

/** The CRC-32 of `bytes[start, end)` as an unsigned 32-bit integer. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = TABLE
  const b = bytes
  let c = 0xffffffff
  let i = start
  // `as number`, not `?? 0`: every index is in range, and the loop stays free of undefined checks.
  for (; i + SLICES <= end; i += SLICES) {
    const a =
      c ^ ((b[i] as number) | ((b[i + 1] as number) << 8) | ((b[i + 2] as number) << 16) | ((b[i + 3] as number) << 24))
    c =
      (t[3840 + (a & 0xff)] as number) ^
      (t[3584 + ((a >>> 8) & 0xff)] as number) ^
      (t[3328 + ((a >>> 16) & 0xff)] as number) ^
      (t[3072 + (a >>> 24)] as number) ^
      (t[2816 + (b[i + 4] as number)] as number) ^
      (t[2560 + (b[i + 5] as number)] as number) ^
      (t[2304 + (b[i + 6] as number)] as number) ^
      (t[2048 + (b[i + 7] as number)] as number) ^
      (t[1792 + (b[i + 8] as number)] as number) ^
      (t[1536 + (b[i + 9] as number)] as number) ^
      (t[1280 + (b[i + 10] as number)] as number) ^
      (t[1024 + (b[i + 11] as number)] as number) ^
      (t[768 + (b[i + 12] as number)] as number) ^
      (t[512 + (b[i + 13] as number)] as number) ^
      (t[256 + (b[i + 14] as number)] as number) ^
      (t[b[i + 15] as number] as number)
  }
  for (; i < end; i++) c = (t[(c ^ (b[i] as number)) & 0xff] as number) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
