/**
 * Greedy packing of queued envelope frames into Signal bodies that each fit the body boundary:
 * as many leading frames as fit go into one `batch` (one frame alone is sent bare), and a frame
 * too large for any body is split into `chunk` bodies.
 * @see docs/sidecar.md §4
 */
import {
  bodyLengthFor,
  encodeBodies,
  encodeBody,
  isProtocolError,
  packBatch,
  type BatchHeader,
} from '@e2e-col/protocol'

export type { BatchHeader }

/** The next bodies to send and how many leading frames they carry. */
export interface PackedSend {
  readonly mode: 'single' | 'batch' | 'chunked'
  readonly taken: number
  readonly bodies: readonly string[]
}

/**
 * Packs the leading frames of `frames` (at least one) into the next send.
 * `newHeader` is called only when a batch is tried.
 * @throws ProtocolError when a frame cannot be carried at all (a boundary too small to chunk into).
 */
export function packNext(
  frames: readonly Uint8Array[],
  maxBodyBytes: number,
  newHeader: () => BatchHeader,
): PackedSend {
  const first = frames[0]
  if (first === undefined) throw new RangeError('packNext needs at least one frame')
  if (bodyLengthFor(first.byteLength) > maxBodyBytes)
    return { mode: 'chunked', taken: 1, bodies: encodeBodies(first, { maxBodyBytes }) }
  const single: PackedSend = { mode: 'single', taken: 1, bodies: [encodeBody(first)] }
  if (frames.length === 1) return single
  try {
    const batch = packBatch(newHeader(), frames, { maxBodyBytes })
    // A batch of one is only the first frame with overhead.
    return batch.packed < 2 ? single : { mode: 'batch', taken: batch.packed, bodies: [encodeBody(batch.frame)] }
  } catch (error) {
    // The batch header can push a frame that fits bare over the boundary: send it bare.
    if (isProtocolError(error) && error.code === 'PROTO_BATCH_TOO_LARGE') return single
    throw error
  }
}
