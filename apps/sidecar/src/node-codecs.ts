/**
 * Plugs Node's native base64 and CRC-32 into the protocol package for this process. The protocol
 * package never trusts them blindly: it checks canonical form itself and falls back to its pure
 * code for anything the lenient native decoder would accept (docs/contract.md §3.5).
 */
import { crc32 } from 'node:zlib'
import { usePlatformCodecs } from '@e2e-col/protocol'

let installed = false

/** Idempotent: every sidecar in the process shares the same codecs. */
export function installNodeCodecs(): void {
  if (installed) return
  usePlatformCodecs({
    base64: {
      encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
      decode: (text) => Buffer.from(text, 'base64'),
    },
    crc32: (bytes) => crc32(bytes),
  })
  installed = true
}
