/**
 * Rebuilds original frames from chunk envelopes that arrive in any order, any number of times.
 * Memory is bounded three ways (partial messages, buffered bytes, age); hitting a bound evicts the
 * oldest partial message and says so in the result, so the caller can log it or ask for a resend.
 *
 * Per message (keyed by document, sender and message id) the outcomes are:
 * - an identical duplicate chunk is ignored (`duplicate`);
 * - a conflicting chunk (same index, other bytes or other metadata) rejects the message;
 * - a complete message whose length, CRC-32 or header does not match rejects it;
 * - a complete, valid message is returned once (`complete`); later chunks of it are `duplicate` for as
 *   long as the finished-message memory holds.
 * A rejected message leaves no trace: its later chunks start afresh, so a clean resend of the same
 * id (the sender's retry, or the repair answer) still completes.
 *
 * @see docs/protocol.md §3.8 "Reassembly and deduplication"
 */
import { positiveInteger } from './bounded-options.ts'
import { decodeChunk } from './chunking.ts'
import { createDedupWindow } from './dedup.ts'
import { decodeEnvelope, DEFAULT_MAX_PAYLOAD_BYTES, MAX_HEADER_BYTES, type Envelope } from './envelope.ts'
import { isProtocolError, ProtocolError } from './errors.ts'
import { isLocalOnly } from './kinds.ts'
import { conflicts, PartialTable, type Eviction, type Partial } from './partial-table.ts'
import { frameCrc32 } from './platform-codecs.ts'

/** Bounds of a {@link Reassembler}. */
export interface ReassemblerOptions {
  /** Most messages buffered at once. */
  readonly maxPartialMessages: number
  /** Most chunk data bytes buffered across all partial messages. */
  readonly maxPartialBytes: number
  /** A partial message is evicted this many milliseconds after its first chunk. */
  readonly ttlMs: number
  /** How many completed message ids are remembered (default 4096). */
  readonly maxFinishedMessages?: number
  /** Payload limit for the reassembled frame (default {@link DEFAULT_MAX_PAYLOAD_BYTES}). */
  readonly maxPayloadBytes?: number
}

export type { Eviction, EvictionReason } from './partial-table.ts'

/** The outcome of {@link Reassembler.push}; every variant lists the evictions it caused. */
export type PushResult =
  | {
      readonly status: 'pending'
      readonly receivedChunks: number
      readonly count: number
      readonly evicted: readonly Eviction[]
    }
  | {
      readonly status: 'complete'
      readonly frame: Uint8Array
      readonly envelope: Envelope
      readonly evicted: readonly Eviction[]
    }
  | { readonly status: 'duplicate'; readonly evicted: readonly Eviction[] }
  | { readonly status: 'rejected'; readonly error: ProtocolError; readonly evicted: readonly Eviction[] }

/** The stateful reassembler returned by {@link createReassembler}. */
export interface Reassembler {
  /**
   * Adds one decoded chunk envelope received at time `now` (milliseconds, non-decreasing).
   *
   * @throws ProtocolError only for a malformed chunk (`PROTO_WRONG_KIND`, `PROTO_TRUNCATED`,
   *   `PROTO_CHUNK_MALFORMED`, `PROTO_CHUNK_TOO_LARGE`); state is then unchanged.
   */
  push(chunk: Envelope, now: number): PushResult
  /** Evicts partial messages older than the TTL and reports them. */
  sweep(now: number): Eviction[]
  /** Partial messages buffered now. */
  readonly partialMessages: number
  /** Chunk data bytes buffered now. */
  readonly partialBytes: number
}

// Shared by every result that evicted nothing; frozen, so no caller can add to another's list.
const NO_EVICTIONS: readonly Eviction[] = Object.freeze([])

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Creates an empty reassembler.
 *
 * @throws ProtocolError `PROTO_INVALID_OPTION` for a bound that is not a positive integer.
 */
/** The frame a complete message's pieces make, checked against its chunks, or why it is not one. */
function assembled(
  partial: Partial,
  maxPayloadBytes: number,
): { readonly frame: Uint8Array; readonly envelope: Envelope } | ProtocolError {
  if (partial.store.bytes !== partial.totalLength)
    return new ProtocolError(
      'PROTO_CHUNK_INTEGRITY',
      `reassembled ${partial.store.bytes} bytes, expected ${partial.totalLength}`,
    )
  const frame = partial.store.assemble()
  if (frameCrc32(frame) !== partial.checksum)
    return new ProtocolError('PROTO_CHUNK_INTEGRITY', 'reassembled frame fails its CRC-32')
  let envelope: Envelope
  try {
    envelope = decodeEnvelope(frame, { maxPayloadBytes })
  } catch (error) {
    const cause = isProtocolError(error) ? error : undefined
    return new ProtocolError('PROTO_CHUNK_INTEGRITY', 'reassembled frame is not a valid envelope', { cause })
  }
  const headerMatches =
    envelope.docId === partial.docId &&
    envelope.senderId === partial.senderId &&
    envelope.messageId === partial.messageId &&
    envelope.seq === partial.seq &&
    envelope.flags === partial.flags
  if (!headerMatches || envelope.kind === 'chunk' || isLocalOnly(envelope.kind))
    return new ProtocolError('PROTO_CHUNK_INTEGRITY', 'reassembled frame does not match its chunks')
  return { frame, envelope }
}

/** Refuses, before anything is buffered, a message no bound could ever hold or decode. */
function checkTotal(totalLength: number, maxPartialBytes: number, maxPayloadBytes: number): void {
  if (totalLength > maxPartialBytes) {
    throw new ProtocolError(
      'PROTO_CHUNK_TOO_LARGE',
      `message of ${totalLength} bytes exceeds maxPartialBytes ${maxPartialBytes}`,
    )
  }
  if (totalLength > maxPayloadBytes + MAX_HEADER_BYTES) {
    throw new ProtocolError(
      'PROTO_CHUNK_TOO_LARGE',
      `message of ${totalLength} bytes exceeds maxPayloadBytes ${maxPayloadBytes} plus the header`,
    )
  }
}

/**
 * Creates an empty reassembler.
 *
 * @throws ProtocolError `PROTO_INVALID_OPTION` for a bound that is not a positive integer.
 */
export function createReassembler(options: ReassemblerOptions): Reassembler {
  const maxPartialMessages = positiveInteger('maxPartialMessages', options.maxPartialMessages)
  const maxPartialBytes = positiveInteger('maxPartialBytes', options.maxPartialBytes)
  const ttlMs = positiveInteger('ttlMs', options.ttlMs)
  const maxFinished = positiveInteger('maxFinishedMessages', options.maxFinishedMessages ?? 4096)
  const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES
  const completed = createDedupWindow({ maxEntries: maxFinished, ttlMs })
  const table = new PartialTable({ ttlMs, maxPartialMessages, maxPartialBytes })

  // The partial the previous push touched: consecutive chunks of one message skip the key and the
  // finished-message lookup (a live partial is never in `completed`).
  let last: Partial | undefined
  let lastKey = ''

  function reject(
    key: string,
    partial: Partial | undefined,
    error: ProtocolError,
    evicted: readonly Eviction[],
  ): PushResult {
    if (partial !== undefined) table.drop(key, partial)
    return { status: 'rejected', error, evicted }
  }

  function complete(
    key: string,
    id: Envelope,
    partial: Partial,
    evicted: readonly Eviction[],
    now: number,
  ): PushResult {
    table.drop(key, partial)
    const done = assembled(partial, maxPayloadBytes)
    if (!('frame' in done)) return reject(key, undefined, done, evicted)
    completed.seen(id.docId, id.senderId, id.messageId, now)
    return { status: 'complete', frame: done.frame, envelope: done.envelope, evicted }
  }

  function push(chunk: Envelope, now: number): PushResult {
    const part = decodeChunk(chunk)
    checkTotal(part.totalLength, maxPartialBytes, maxPayloadBytes)
    const evicted = table.sweepInto(now, undefined) ?? NO_EVICTIONS
    let key: string
    let partial: Partial | undefined
    if (
      last !== undefined &&
      last.live &&
      last.messageId === chunk.messageId &&
      last.senderId === chunk.senderId &&
      last.docId === chunk.docId
    ) {
      key = lastKey
      partial = last
    } else {
      key = `${chunk.docId}/${chunk.senderId}/${chunk.messageId}`
      partial = table.get(key)
      if (partial === undefined && completed.has(chunk.docId, chunk.senderId, chunk.messageId, now))
        return { status: 'duplicate', evicted }
    }
    if (partial === undefined) partial = table.open(key, chunk, part, now)
    else if (conflicts(partial, part, chunk)) {
      return reject(
        key,
        partial,
        new ProtocolError('PROTO_CHUNK_CONFLICT', 'chunk metadata differs from earlier chunks of the message'),
        evicted,
      )
    }
    const existing = partial.store.pieces.get(part.index)
    if (existing !== undefined) {
      if (sameBytes(existing, part.data)) return { status: 'duplicate', evicted }
      return reject(
        key,
        partial,
        new ProtocolError('PROTO_CHUNK_CONFLICT', `chunk ${part.index} arrived twice with different bytes`),
        evicted,
      )
    }
    if (partial.store.bytes + part.data.length > partial.totalLength) {
      return reject(
        key,
        partial,
        new ProtocolError('PROTO_CHUNK_INTEGRITY', 'chunks carry more bytes than the total length'),
        evicted,
      )
    }
    // Copy: the data is a view into a buffer the caller may reuse.
    table.add(partial, part.index, part.data)
    last = partial
    lastKey = key
    if (partial.store.pieces.size === partial.count) return complete(key, chunk, partial, evicted, now)
    // Evict oldest first; the message just pushed may itself be the oldest.
    const out = table.evictOverBounds(evicted === NO_EVICTIONS ? undefined : (evicted as Eviction[]))
    const receivedChunks = partial.live ? partial.store.pieces.size : 0
    return { status: 'pending', receivedChunks, count: part.count, evicted: out ?? NO_EVICTIONS }
  }

  return {
    push,
    sweep: (now) => table.sweepInto(now, undefined) ?? [],
    get partialMessages() {
      return table.size
    },
    get partialBytes() {
      return table.totalBytes
    },
  }
}
