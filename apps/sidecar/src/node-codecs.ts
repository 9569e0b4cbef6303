/**
 * Plugs Node's native base64 and CRC-32 into the protocol package for this process. The protocol
 * package never trusts them blindly: it checks canonical form itself and falls back to its pure
 * code for anything the lenient native decoder would accept (docs/protocol.md §3.5).
 */
import { crc32 } from 'node:zlib'
import { usePlatformCodecs, type PlatformCodecs } from '@e2e-col/protocol'

/** Decoded bodies are carved out of slabs this large (Node's own Buffer pool is 8 KiB). */
const SLAB_BYTES = 16 * 1024
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
let slabUsed = 0

/**
 * `Buffer.from(text, 'base64')`, but written into a shared slab and handed out as a plain
 * `Uint8Array` view, saving a Buffer object and a re-wrapping view per body. Each call gets its
 * own disjoint range, never written again; a view keeps its slab (16 KiB) alive, as a pooled Buffer
 * keeps its pool. Output is as lenient as `Buffer.from`, which the protocol package double-checks.
 */
function decodeBase64(text: string): Uint8Array {
  const most = Math.ceil(text.length / 4) * 3
  if (most > SLAB_BYTES >>> 1) {
    const own = Buffer.from(text, 'base64')
    return new Uint8Array(own.buffer, own.byteOffset, own.byteLength)
  }
  if (SLAB_BYTES - slabUsed < most) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
    slabUsed = 0
  }
  const written = slab.write(text, slabUsed, 'base64')
  const bytes = new Uint8Array(slab.buffer, slab.byteOffset + slabUsed, written)
  // Keep the next range 8-byte aligned.
  slabUsed += (written + 7) & ~7
  return bytes
}

// A Buffer over the last `decodeInto` target: callers reuse one scratch, so this is made once.
let intoTarget: Uint8Array | undefined
let intoBuffer: Buffer = Buffer.alloc(0)

/** `decodeBase64` straight into the caller's scratch: no allocation, no fresh memory touched. */
function decodeBase64Into(text: string, target: Uint8Array): number {
  if (target !== intoTarget) {
    intoTarget = target
    intoBuffer = Buffer.from(target.buffer, target.byteOffset, target.byteLength)
  }
  return intoBuffer.write(text, 0, 'base64')
}

/** The codecs the sidecar runs with (the protocol benchmark measures these same objects). */
export const NODE_CODECS: PlatformCodecs = {
  base64: {
    encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
    decode: decodeBase64,
    decodeInto: decodeBase64Into,
  },
  crc32: (bytes) => crc32(bytes),
}

let installed = false

/** Idempotent: every sidecar in the process shares the same codecs. */
export function installNodeCodecs(): void {
  if (installed) return
  usePlatformCodecs(NODE_CODECS)
  installed = true
}
