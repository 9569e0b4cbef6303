/**
 * Splitting one frame into Signal bodies that each fit a UTF-8 size limit, with the fewest bodies
 * possible. A frame that fits travels whole; otherwise it becomes `count` chunk envelopes that repeat
 * the original's kind-independent header (doc, sender, message id, seq, flags) with kind `chunk`:
 *
 * ```
 * chunk payload := u32(index) • u32(count) • u32(totalLength) • u32(crc32(original frame)) • data
 * ```
 *
 * Every chunk but the last carries the same maximal `data` length, so `count = ceil(total / perChunk)`
 * is the minimum: no chunking can put more original bytes in one body.
 *
 * @see docs/protocol.md §3.6 "Chunks"
 */
import { readU32, varUintLength, writeU32, writeVarUint, ByteReader } from './byte-reader.ts'
import type { Base64Codec } from './base64-codec.ts'
import { bodyCapacity, bodyLengthFor, encodeBody } from './body.ts'
import {
  decodeEnvelope,
  envelopeByteLength,
  FIXED_HEADER_BYTES,
  MAX_HEADER_BYTES,
  MAX_PAYLOAD_LENGTH,
  type Envelope,
} from './envelope.ts'
import { ProtocolError } from './errors.ts'
import { isLocalOnly, KINDS } from './kinds.ts'
import { frameCrc32 } from './platform-codecs.ts'

/** Bytes of chunk metadata before the data: index, count, total length, checksum. */
export const CHUNK_META_BYTES = 16
const U32_MAX = 0xffff_ffff

/** Options of {@link chunkFrame} and {@link encodeBodies}. */
export interface ChunkOptions {
  /** UTF-8 size limit of one whole body, prefix and base64 included (Signal's is 2000). */
  readonly maxBodyBytes: number
  /**
   * Native base64 for {@link encodeBodies} (default: the one set by `usePlatformCodecs`, else the
   * portable encoder). The bodies are byte-identical either way; {@link chunkFrame} ignores it.
   */
  readonly base64?: Base64Codec
}

/** The metadata and data of one decoded chunk envelope. */
export interface ChunkPart {
  readonly index: number
  readonly count: number
  /** Length of the original frame. */
  readonly totalLength: number
  /** CRC-32 of the original frame. */
  readonly checksum: number
  /** This chunk's slice of the original frame (a view into the chunk's payload). */
  readonly data: Uint8Array
}

function checkBoundary(maxBodyBytes: number): void {
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new ProtocolError('PROTO_INVALID_OPTION', 'maxBodyBytes must be a positive integer')
  }
}

/** Most original bytes one chunk can carry within `capacity` frame bytes, or 0 if none fit. */
function dataPerChunk(seq: number, capacity: number): number {
  let d = capacity - FIXED_HEADER_BYTES - varUintLength(seq) - CHUNK_META_BYTES - varUintLength(capacity)
  // The payload-length varint may be shorter than the capacity's, leaving room for a byte or two more.
  while (d >= 0 && envelopeByteLength(seq, CHUNK_META_BYTES + d + 1) <= capacity) d++
  while (d > 0 && envelopeByteLength(seq, CHUNK_META_BYTES + d) > capacity) d--
  return Math.max(0, d)
}

/**
 * The fewest original-frame bytes one chunk body of at most `maxBodyBytes` carries, whatever the
 * envelope's seq and payload length (its header counted at the widest); 0 when no chunk fits. For
 * estimating how many bodies a frame costs without planning it.
 */
export function leastChunkData(maxBodyBytes: number): number {
  return Math.max(0, bodyCapacity(maxBodyBytes) - MAX_HEADER_BYTES - CHUNK_META_BYTES)
}

/**
 * The smallest `maxBodyBytes` at which `frame` can be sent: whole if that is smaller, otherwise as
 * chunks of one byte each.
 */
export function smallestBoundary(frame: Uint8Array): number {
  const seq = decodeEnvelope(frame, { maxPayloadBytes: MAX_PAYLOAD_LENGTH }).seq
  return Math.min(bodyLengthFor(frame.length), bodyLengthFor(envelopeByteLength(seq, CHUNK_META_BYTES + 1)))
}

/**
 * Splits an encoded envelope into the fewest frames whose bodies each fit `maxBodyBytes`: `[frame]`
 * itself when it fits, else chunk envelopes. The input is validated by {@link decodeEnvelope} first.
 *
 * @throws ProtocolError `PROTO_LOCAL_ONLY` for `ack`/`error`, `PROTO_WRONG_KIND` for a `chunk`,
 *   `PROTO_BOUNDARY_TOO_SMALL` (naming the smallest boundary that works), `PROTO_INVALID_OPTION`,
 *   or any decoding code for a malformed frame.
 */
export function chunkFrame(frame: Uint8Array, options: ChunkOptions): Uint8Array[] {
  const plan = planChunks(frame, options)
  if (plan === undefined) return [frame]
  const chunks: Uint8Array[] = []
  for (let index = 0; index < plan.count; index++) {
    const chunk = new Uint8Array(chunkLength(plan, index))
    writeChunk(plan, index, chunk)
    chunks.push(chunk)
  }
  return chunks
}

/**
 * Turns one encoded envelope into the fewest `e2e-col:v1:` bodies of at most `maxBodyBytes` UTF-8
 * bytes each, ready to send as Signal messages in order (receivers accept any order).
 *
 * @throws ProtocolError as {@link chunkFrame}, and `PROTO_INVALID_OPTION` for a broken `base64` codec.
 */
export function encodeBodies(frame: Uint8Array, options: ChunkOptions): string[] {
  const codec = options.base64 === undefined ? {} : { base64: options.base64 }
  const plan = planChunks(frame, options)
  if (plan === undefined) return [encodeBody(frame, 0, frame.length, codec)]
  // Every chunk is built in one scratch frame and encoded from there: no per-chunk allocation.
  const scratch = new Uint8Array(chunkLength(plan, 0))
  const bodies: string[] = []
  for (let index = 0; index < plan.count; index++) {
    bodies.push(encodeBody(scratch, 0, writeChunk(plan, index, scratch), codec))
  }
  return bodies
}

/** How one frame is cut: everything {@link writeChunk} needs, computed once per frame. */
interface ChunkPlan {
  readonly frame: Uint8Array
  readonly seq: number
  readonly headerEnd: number
  readonly perChunk: number
  readonly count: number
  readonly checksum: number
}

/** Validates `frame` and plans its chunks, or `undefined` when it fits one body whole. */
function planChunks(frame: Uint8Array, options: ChunkOptions): ChunkPlan | undefined {
  checkBoundary(options.maxBodyBytes)
  const envelope = decodeEnvelope(frame, { maxPayloadBytes: MAX_PAYLOAD_LENGTH })
  if (isLocalOnly(envelope.kind))
    throw new ProtocolError('PROTO_LOCAL_ONLY', `${envelope.kind} envelopes never leave the machine`)
  if (envelope.kind === 'chunk') throw new ProtocolError('PROTO_WRONG_KIND', 'a chunk cannot be chunked again')
  const capacity = bodyCapacity(options.maxBodyBytes)
  if (frame.length <= capacity) return undefined
  const perChunk = dataPerChunk(envelope.seq, capacity)
  if (perChunk < 1) {
    throw new ProtocolError(
      'PROTO_BOUNDARY_TOO_SMALL',
      `maxBodyBytes ${options.maxBodyBytes} cannot carry any payload; the smallest boundary that works for this frame is ${smallestBoundary(frame)}`,
    )
  }
  if (frame.length > U32_MAX) throw new ProtocolError('PROTO_LENGTH_OVERFLOW', 'frame too long to chunk')
  return {
    frame,
    seq: envelope.seq,
    headerEnd: FIXED_HEADER_BYTES + varUintLength(envelope.seq),
    perChunk,
    count: Math.ceil(frame.length / perChunk),
    checksum: frameCrc32(frame),
  }
}

/** Encoded length of chunk `index`; chunk 0 is the longest. */
function chunkLength(plan: ChunkPlan, index: number): number {
  const start = index * plan.perChunk
  const end = Math.min(plan.frame.length, start + plan.perChunk)
  return envelopeByteLength(plan.seq, CHUNK_META_BYTES + end - start)
}

/** Writes chunk `index` at the start of `target`; returns its length. */
function writeChunk(plan: ChunkPlan, index: number, target: Uint8Array): number {
  const { frame, headerEnd, perChunk } = plan
  const start = index * perChunk
  const end = Math.min(frame.length, start + perChunk)
  const payloadLength = CHUNK_META_BYTES + end - start
  // Same magic, version, flags, ids and seq as the original; only the kind byte changes.
  target.set(frame.subarray(0, headerEnd), 0)
  target[3] = KINDS.chunk.code
  let o = writeVarUint(target, headerEnd, payloadLength)
  o = writeU32(target, o, index)
  o = writeU32(target, o, plan.count)
  o = writeU32(target, o, frame.length)
  o = writeU32(target, o, plan.checksum)
  target.set(frame.subarray(start, end), o)
  return o + end - start
}

/**
 * Reads the chunk metadata of a decoded `chunk` envelope.
 *
 * @throws ProtocolError `PROTO_WRONG_KIND` for another kind, `PROTO_TRUNCATED` for short metadata,
 *   `PROTO_CHUNK_MALFORMED` for an index outside the count, a count below 2, empty data, or data longer
 *   than the total.
 */
export function decodeChunk(envelope: Envelope): ChunkPart {
  if (envelope.kind !== 'chunk')
    throw new ProtocolError('PROTO_WRONG_KIND', `expected a chunk envelope, got ${envelope.kind}`)
  const p = envelope.payload
  if (p.length < CHUNK_META_BYTES) {
    // Short metadata: let a reader name the field that ran out.
    const r = new ByteReader(p, 'chunk')
    for (const field of ['index', 'count', 'total length', 'checksum']) r.u32(field)
  }
  // Direct reads: one ByteReader per chunk is measurable at ~740 chunks per MiB.
  const index = readU32(p, 0)
  const count = readU32(p, 4)
  const totalLength = readU32(p, 8)
  const checksum = readU32(p, 12)
  const data = p.subarray(CHUNK_META_BYTES)
  if (count < 2) throw new ProtocolError('PROTO_CHUNK_MALFORMED', `chunk count ${count} is below 2`)
  if (index >= count)
    throw new ProtocolError('PROTO_CHUNK_MALFORMED', `chunk index ${index} is not below its count ${count}`)
  if (data.length === 0) throw new ProtocolError('PROTO_CHUNK_MALFORMED', 'chunk carries no data')
  if (totalLength < count || data.length > totalLength) {
    throw new ProtocolError(
      'PROTO_CHUNK_MALFORMED',
      `chunk total length ${totalLength} cannot hold ${count} chunks of this size`,
    )
  }
  return { index, count, totalLength, checksum, data }
}
