/**
 * Optional native helpers a host can plug in for speed: a base64 codec and a CRC-32 function. This
 * package stays pure (it never imports them); the sidecar on Node passes `Buffer`- and `zlib`-backed
 * ones once at startup. Neither changes a single byte on the wire or any verdict: a plugged-in base64
 * decoder is double-checked (see `base64-codec.ts`) and a CRC-32 function must pass known answers.
 */
import type { Base64Codec } from './base64-codec.ts'
import { crc32 } from './crc32.ts'
import { ProtocolError } from './errors.ts'

/** CRC-32/IEEE of a whole byte array, as an unsigned 32-bit integer (Node: `zlib.crc32`). */
export type Crc32Function = (bytes: Uint8Array) => number

/** The native helpers {@link usePlatformCodecs} accepts; each is optional. */
export interface PlatformCodecs {
  /** Base64 for bodies; used when a call passes no `base64` option of its own. */
  readonly base64?: Base64Codec
  /** CRC-32 for chunk checksums (chunking and reassembly). */
  readonly crc32?: Crc32Function
}

let current: PlatformCodecs = {}

// Known answers a plugged-in CRC-32 must reproduce: empty input, the standard check string, all 256 bytes.
const CRC_CHECKS: ReadonlyArray<readonly [Uint8Array, number]> = [
  [new Uint8Array(0), 0],
  [Uint8Array.from('123456789', (c) => c.charCodeAt(0)), 0xcbf43926],
  [Uint8Array.from({ length: 256 }, (_, i) => i), crc32(Uint8Array.from({ length: 256 }, (_, i) => i))],
]

/**
 * Sets the process-wide native helpers (replacing all earlier ones; `{}` restores the portable code)
 * and returns the previous set, so a test can restore it. Call it once at startup.
 *
 * @example Node (the sidecar):
 * ```ts
 * usePlatformCodecs({
 *   base64: { encode: (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'), decode: (s) => Buffer.from(s, 'base64') },
 *   crc32: (b) => zlib.crc32(b),
 * })
 * ```
 * @throws ProtocolError `PROTO_INVALID_OPTION` for a codec without `encode`/`decode` functions or a
 *   CRC-32 function that gets a known answer wrong; the previous helpers then stay in place.
 */
export function usePlatformCodecs(codecs: PlatformCodecs): PlatformCodecs {
  const { base64, crc32: crc } = codecs
  if (base64 !== undefined && (typeof base64.encode !== 'function' || typeof base64.decode !== 'function')) {
    throw new ProtocolError('PROTO_INVALID_OPTION', 'a base64 codec needs encode and decode functions')
  }
  if (base64?.decodeInto !== undefined && typeof base64.decodeInto !== 'function') {
    throw new ProtocolError('PROTO_INVALID_OPTION', 'a base64 codec’s decodeInto must be a function')
  }
  if (crc !== undefined && (typeof crc !== 'function' || CRC_CHECKS.some(([bytes, want]) => crc(bytes) !== want))) {
    throw new ProtocolError('PROTO_INVALID_OPTION', 'the crc32 function does not compute CRC-32/IEEE')
  }
  const previous = current
  current = { ...(base64 === undefined ? {} : { base64 }), ...(crc === undefined ? {} : { crc32: crc }) }
  return previous
}

/** The base64 codec a call should use: its own, else the plugged-in one, else none (portable). */
export function base64For(own: Base64Codec | undefined): Base64Codec | undefined {
  return own ?? current.base64
}

/** CRC-32 of a whole array with the plugged-in function, else the portable one. */
export function frameCrc32(bytes: Uint8Array): number {
  const native = current.crc32
  return native === undefined ? crc32(bytes) : native(bytes) >>> 0
}
