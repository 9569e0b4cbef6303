/**
 * Batches: several small encoded envelopes packed into one `batch` envelope that fits one body, so a
 * burst of small updates costs one Signal message instead of many.
 *
 * ```
 * batch payload := varUint(count) • (varUint(length) • envelope)^count      1 ≤ count ≤ MAX_BATCH_ENTRIES
 * ```
 *
 * Inner envelopes keep their own doc, sender, message id and seq; a batch never holds another batch
 * or a local-only kind.
 *
 * @see docs/protocol.md §3.7 "Batches"
 */
import { ByteReader, varUintLength, writeVarUint } from './byte-reader.ts'
import { bodyCapacity } from './body.ts'
import {
  decodeEnvelope,
  encodeEnvelope,
  envelopeByteLength,
  MAX_PAYLOAD_LENGTH,
  type DecodeEnvelopeOptions,
  type Envelope,
} from './envelope.ts'
import { ProtocolError } from './errors.ts'
import { isLocalOnly } from './kinds.ts'

/** Most envelopes one batch may hold. */
export const MAX_BATCH_ENTRIES = 1024

/** The batch envelope's own header: who sends it, under which id and seq. */
export interface BatchHeader {
  readonly docId: string
  readonly senderId: string
  readonly messageId: string
  readonly seq: number
  readonly flags?: number
}

/** Options of {@link packBatch}. */
export interface PackBatchOptions {
  /** UTF-8 size limit of the one body the batch must fit. */
  readonly maxBodyBytes: number
}

/** The result of {@link packBatch}: the batch frame and how many leading frames it holds. */
export interface PackedBatch {
  readonly frame: Uint8Array
  readonly packed: number
}

function checkEntry(envelope: Envelope): void {
  if (envelope.kind === 'batch') throw new ProtocolError('PROTO_BATCH_NESTED', 'a batch cannot hold another batch')
  if (isLocalOnly(envelope.kind))
    throw new ProtocolError('PROTO_LOCAL_ONLY', `${envelope.kind} envelopes never leave the machine`)
}

/**
 * Packs the longest prefix of `frames` (each an encoded envelope) into one batch envelope whose body
 * fits `maxBodyBytes`; call again with the rest. Every frame in the prefix is validated first.
 *
 * @throws ProtocolError `PROTO_BATCH_EMPTY` for no frames, `PROTO_BATCH_TOO_LARGE` when not even the
 *   first frame fits, `PROTO_BATCH_NESTED`, `PROTO_LOCAL_ONLY`, `PROTO_INVALID_OPTION`,
 *   `PROTO_INVALID_FIELD` for a bad header, or any decoding code for a malformed frame.
 */
export function packBatch(header: BatchHeader, frames: readonly Uint8Array[], options: PackBatchOptions): PackedBatch {
  if (!Number.isSafeInteger(options.maxBodyBytes) || options.maxBodyBytes < 1) {
    throw new ProtocolError('PROTO_INVALID_OPTION', 'maxBodyBytes must be a positive integer')
  }
  if (frames.length === 0) throw new ProtocolError('PROTO_BATCH_EMPTY', 'nothing to batch')
  const capacity = bodyCapacity(options.maxBodyBytes)
  let packed = 0
  let entriesLength = 0
  for (const frame of frames) {
    if (packed === MAX_BATCH_ENTRIES) break
    const entryLength = varUintLength(frame.length) + frame.length
    const payloadLength = varUintLength(packed + 1) + entriesLength + entryLength
    if (envelopeByteLength(header.seq, payloadLength) > capacity) break
    checkEntry(decodeEnvelope(frame, { maxPayloadBytes: MAX_PAYLOAD_LENGTH }))
    entriesLength += entryLength
    packed++
  }
  if (packed === 0)
    throw new ProtocolError(
      'PROTO_BATCH_TOO_LARGE',
      `the first frame does not fit a batch within ${options.maxBodyBytes} body bytes`,
    )
  const payload = new Uint8Array(varUintLength(packed) + entriesLength)
  let o = writeVarUint(payload, 0, packed)
  for (let i = 0; i < packed; i++) {
    const frame = frames[i] ?? new Uint8Array(0)
    o = writeVarUint(payload, o, frame.length)
    payload.set(frame, o)
    o += frame.length
  }
  const frame = encodeEnvelope({
    kind: 'batch',
    flags: header.flags ?? 0,
    docId: header.docId,
    senderId: header.senderId,
    messageId: header.messageId,
    seq: header.seq,
    payload,
  })
  return { frame, packed }
}

/**
 * Unpacks a decoded `batch` envelope into its decoded inner envelopes (payloads are views into the
 * batch's bytes), with the same strictness as {@link decodeEnvelope}.
 *
 * @throws ProtocolError `PROTO_WRONG_KIND`, `PROTO_BATCH_EMPTY`, `PROTO_LENGTH_OVERFLOW` (count over
 *   {@link MAX_BATCH_ENTRIES}), `PROTO_BATCH_MALFORMED` (an empty entry), `PROTO_TRUNCATED`,
 *   `PROTO_TRAILING_BYTES`, `PROTO_BATCH_NESTED`, `PROTO_LOCAL_ONLY`, or any code of an inner envelope.
 */
export function unpackBatch(batch: Envelope, options: DecodeEnvelopeOptions = {}): Envelope[] {
  if (batch.kind !== 'batch')
    throw new ProtocolError('PROTO_WRONG_KIND', `expected a batch envelope, got ${batch.kind}`)
  const r = new ByteReader(batch.payload, 'batch')
  const count = r.varUint('count', MAX_BATCH_ENTRIES, 'PROTO_LENGTH_OVERFLOW')
  if (count === 0) throw new ProtocolError('PROTO_BATCH_EMPTY', 'batch holds no envelopes')
  const out: Envelope[] = []
  for (let i = 0; i < count; i++) {
    const length = r.varUint(`entry ${i} length`, MAX_PAYLOAD_LENGTH, 'PROTO_LENGTH_OVERFLOW')
    if (length === 0) throw new ProtocolError('PROTO_BATCH_MALFORMED', `batch entry ${i} is empty`)
    const inner = decodeEnvelope(r.view(length, `entry ${i}`), options)
    checkEntry(inner)
    out.push(inner)
  }
  if (r.remaining !== 0)
    throw new ProtocolError('PROTO_TRAILING_BYTES', `batch has ${r.remaining} byte(s) after its last entry`)
  return out
}
