/**
 * The partial messages a reassembler holds, in first-chunk order, with the three bounds on them
 * (count, buffered bytes, age) and the frames granted up front. Evicting is always oldest first.
 *
 * @see docs/protocol.md §3.8 "Reassembly and deduplication"
 */
import type { ChunkPart } from './chunking.ts'
import type { Envelope } from './envelope.ts'
import { PieceStore } from './piece-store.ts'

/** Why a partial message was dropped without completing. */
export type EvictionReason = 'expired' | 'max-partial-messages' | 'max-partial-bytes'

/** One partial message dropped to stay within bounds. */
export interface Eviction {
  readonly docId: string
  readonly senderId: string
  readonly messageId: string
  readonly reason: EvictionReason
  readonly receivedChunks: number
  readonly count: number
}

/** One message being reassembled. */
export interface Partial {
  readonly docId: string
  readonly senderId: string
  readonly messageId: string
  readonly seq: number
  readonly flags: number
  readonly count: number
  readonly totalLength: number
  readonly checksum: number
  readonly firstSeenAt: number
  readonly store: PieceStore
  /** False once completed, rejected or evicted (guards the reassembler's last-partial shortcut). */
  live: boolean
}

/** True when a chunk's metadata differs from the earlier chunks of its message. */
export function conflicts(partial: Partial, part: ChunkPart, chunk: Envelope): boolean {
  const samePlan = partial.count === part.count && partial.totalLength === part.totalLength
  const sameHeader = partial.seq === chunk.seq && partial.flags === chunk.flags
  return !samePlan || !sameHeader || partial.checksum !== part.checksum
}

export class PartialTable {
  /** key → partial; Map insertion order is first-chunk order, so the first entry is the oldest. */
  private readonly partials = new Map<string, Partial>()
  /** Chunk data bytes buffered. */
  totalBytes = 0
  // Bytes of the frames granted up front (see PieceStore); kept at or below maxPartialBytes.
  private reservedBytes = 0
  // `firstSeenAt` of the oldest partial, so most pushes skip the sweep without iterating the Map;
  // -Infinity (forcing a real look) whenever a drop may have changed which partial is oldest.
  private oldestSeenAt = Number.NEGATIVE_INFINITY

  private readonly ttlMs: number
  private readonly maxPartialMessages: number
  private readonly maxPartialBytes: number

  constructor(bounds: { ttlMs: number; maxPartialMessages: number; maxPartialBytes: number }) {
    this.ttlMs = bounds.ttlMs
    this.maxPartialMessages = bounds.maxPartialMessages
    this.maxPartialBytes = bounds.maxPartialBytes
  }

  get size(): number {
    return this.partials.size
  }

  get(key: string): Partial | undefined {
    return this.partials.get(key)
  }

  /** Starts a message at its first chunk, granting its whole frame up front when the bound allows. */
  open(key: string, chunk: Envelope, part: ChunkPart, now: number): Partial {
    // Granted frames stay within maxPartialBytes (so memory held stays under twice that bound);
    // otherwise the store falls back to slabs.
    const grant = this.reservedBytes + part.totalLength <= this.maxPartialBytes
    if (grant) this.reservedBytes += part.totalLength
    const partial: Partial = {
      docId: chunk.docId,
      senderId: chunk.senderId,
      messageId: chunk.messageId,
      seq: chunk.seq,
      flags: chunk.flags,
      count: part.count,
      totalLength: part.totalLength,
      checksum: part.checksum,
      firstSeenAt: now,
      store: new PieceStore(part.count, part.totalLength, grant ? new Uint8Array(part.totalLength) : undefined),
      live: true,
    }
    if (this.partials.size === 0) this.oldestSeenAt = now
    this.partials.set(key, partial)
    return partial
  }

  /** Copies one chunk's data into its message. */
  add(partial: Partial, index: number, data: Uint8Array): void {
    partial.store.add(index, data)
    this.totalBytes += data.length
  }

  /** Forgets a message (completed, rejected or evicted). */
  drop(key: string, partial: Partial): void {
    this.partials.delete(key)
    this.oldestSeenAt = Number.NEGATIVE_INFINITY
    this.totalBytes -= partial.store.bytes
    if (partial.store.frame !== undefined) this.reservedBytes -= partial.store.frame.length
    partial.live = false
  }

  /** Evicts expired partials into `out`, allocated only on a first eviction (most pushes evict none). */
  sweepInto(now: number, out: Eviction[] | undefined): Eviction[] | undefined {
    if (this.partials.size === 0 || now - this.oldestSeenAt < this.ttlMs) return out
    for (const [key, partial] of this.partials) {
      if (now - partial.firstSeenAt < this.ttlMs) {
        this.oldestSeenAt = partial.firstSeenAt
        break
      }
      out = this.evict(key, partial, 'expired', out ?? [])
    }
    return out
  }

  /** Evicts the oldest messages until both the count and the byte bound hold again. */
  evictOverBounds(out: Eviction[] | undefined): Eviction[] | undefined {
    if (this.partials.size > this.maxPartialMessages) {
      for (const [k, p] of this.partials) {
        if (this.partials.size <= this.maxPartialMessages) break
        out = this.evict(k, p, 'max-partial-messages', out ?? [])
      }
    }
    if (this.totalBytes > this.maxPartialBytes) {
      for (const [k, p] of this.partials) {
        if (this.totalBytes <= this.maxPartialBytes) break
        out = this.evict(k, p, 'max-partial-bytes', out ?? [])
      }
    }
    return out
  }

  private evict(key: string, partial: Partial, reason: EvictionReason, out: Eviction[]): Eviction[] {
    this.drop(key, partial)
    out.push({
      docId: partial.docId,
      senderId: partial.senderId,
      messageId: partial.messageId,
      reason,
      receivedChunks: partial.store.pieces.size,
      count: partial.count,
    })
    return out
  }
}
