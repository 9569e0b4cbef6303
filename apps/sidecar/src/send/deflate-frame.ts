/**
 * Payload compression for the Signal hop: an envelope too large for one body has its Yjs payload
 * raw-DEFLATEd and the `deflated` flag set, when that makes the frame smaller. Large Yjs updates
 * (snapshots, sync answers, a burst of typing merged by the client) shrink to about half, and so
 * does the number of paced Signal sends they cost. Small envelopes are never touched: a frame that
 * fits one body already costs one send.
 * @see docs/protocol.md §3.4, sidecar.md §4.2
 */
import { promisify } from 'node:util'
import { deflateRaw } from 'node:zlib'
import { bodyLengthFor, decodeEnvelope, encodeEnvelope, FLAGS, type Kind } from '@e2e-col/protocol'

// The kinds whose payload is a Yjs update; others are small or not ours to reshape.
const COMPRESSIBLE: ReadonlySet<Kind> = new Set(['update', 'snapshot', 'sync-response'])

// zlib's default trade-off; level 9 saves ~1 % more on Yjs updates for ~2× the time.
const LEVEL = 6

// Off the event loop (libuv's thread pool): a frame of megabytes must not stall other documents.
const deflate = promisify(deflateRaw)

/** True when the frame needs more than one body of `maxBodyBytes`. */
export const needsChunks = (frame: Uint8Array, maxBodyBytes: number): boolean =>
  bodyLengthFor(frame.byteLength) > maxBodyBytes

/** The frame to put on Signal: deflated when it needs chunks and deflating makes it smaller. */
export async function deflateFrame(frame: Uint8Array, maxBodyBytes: number): Promise<Uint8Array> {
  if (!needsChunks(frame, maxBodyBytes)) return frame
  const env = decodeEnvelope(frame, { maxPayloadBytes: Number.MAX_SAFE_INTEGER })
  if (!COMPRESSIBLE.has(env.kind) || (env.flags & FLAGS.deflated) !== 0) return frame
  const payload = new Uint8Array(await deflate(env.payload, { level: LEVEL }))
  const smaller = encodeEnvelope({ ...env, flags: env.flags | FLAGS.deflated, payload })
  return smaller.byteLength < frame.byteLength ? smaller : frame
}
