/**
 * The client's local persistence port: one store per document holding the full-state checkpoint,
 * the durable outbox and the sequence reservation mark, plus one installation-wide sender id.
 * {@link createIndexedDbStorage} is the browser implementation; {@link createMemoryStorage} keeps
 * everything in memory (not durable: for Node tools and tests that are not about durability).
 */
import { newUuid } from './ids.ts'

/** One unacknowledged envelope, persisted before it is sent and replayed with the same id. */
export interface OutboxEntry {
  /** Per-sender sequence number the envelope was first sent with (also the storage order). */
  readonly seq: number
  readonly messageId: string
  readonly kind: 'update' | 'snapshot'
  /** A Yjs update (v1 encoding). */
  readonly payload: Uint8Array
}

/** What {@link ClientStorage.load} returns. */
export interface StoredDoc {
  readonly checkpoint: Uint8Array | undefined
  /** In seq order. */
  readonly outbox: readonly OutboxEntry[]
  /** Sequence numbers below this mark may have been used already. */
  readonly seqMark: number
  /** Stored records that were unreadable and skipped (a corrupted or foreign store). */
  readonly skipped: number
}

/** One atomic change to a document's store. */
export interface StorageCommit {
  readonly checkpoint?: Uint8Array
  readonly add?: readonly OutboxEntry[]
  /** Seqs of outbox entries to delete. */
  readonly remove?: readonly number[]
  readonly seqMark?: number
}

/**
 * A synchronous last-resort slot for the page-hide moment: an IndexedDB write started while a page
 * unloads may never complete, so the client also leaves its full state here (synchronously) and
 * folds it back in on the next load. With it, the client ids the page wrote under: of what the
 * state adds, only their structs are this page's to send (the rest came from peers, through the
 * sidecar, which has it).
 */
export interface RescueSlot {
  /**
   * Stores `state` and the client ids `writers` the page wrote under (replacing any previous
   * ones); returns false when it does not fit. Never throws.
   */
  save(state: Uint8Array, writers?: readonly number[]): boolean
  /** The saved state, if any (it stays until {@link clear}). */
  peek(): Uint8Array | undefined
  /**
   * The client ids saved with the state; undefined when none were (a slot written before they
   * were kept, or one that does not keep them): the client then sends all the state adds.
   */
  peekWriters?(): number[] | undefined
  clear(): void
}

/** Most client ids a rescue keeps (the newest): a page writes under one, or a few after Yjs switches. */
export const MAX_RESCUE_WRITERS = 64

/** The newest {@link MAX_RESCUE_WRITERS} of `writers` that are client ids, or undefined for anything else. */
export function rescueWriters(writers: unknown): number[] | undefined {
  if (!Array.isArray(writers) || !writers.every((id) => Number.isSafeInteger(id) && (id as number) >= 0))
    return undefined
  return (writers as number[]).slice(-MAX_RESCUE_WRITERS)
}

/** Persistence of one document (plus the installation id). Every method may reject. */
export interface ClientStorage {
  /** The installation's sender id, created and persisted on first use. */
  senderId(): Promise<string>
  load(): Promise<StoredDoc>
  /** Applies every part of `change` atomically (all or nothing). */
  commit(change: StorageCommit): Promise<void>
  /** Present where a synchronous store exists (browsers: localStorage). */
  readonly rescue?: RescueSlot
}

/** Keeps the document in memory only: nothing survives a reload. */
export function createMemoryStorage(): ClientStorage {
  const sender = newUuid()
  let checkpoint: Uint8Array | undefined
  let seqMark = 0
  const outbox = new Map<number, OutboxEntry>()
  let rescued: Uint8Array | undefined
  let writers: number[] | undefined
  return {
    rescue: {
      save(state, ids) {
        rescued = state.slice()
        writers = rescueWriters(ids)
        return true
      },
      peek: () => rescued,
      peekWriters: () => writers?.slice(),
      clear() {
        rescued = undefined
        writers = undefined
      },
    },
    senderId: () => Promise.resolve(sender),
    load() {
      const entries = Array.from(outbox.values())
      entries.sort((a, b) => a.seq - b.seq)
      return Promise.resolve({ checkpoint, outbox: entries, seqMark, skipped: 0 })
    },
    commit(change) {
      if (change.checkpoint !== undefined) checkpoint = change.checkpoint
      for (const seq of change.remove ?? []) outbox.delete(seq)
      for (const entry of change.add ?? []) outbox.set(entry.seq, entry)
      if (change.seqMark !== undefined) seqMark = Math.max(seqMark, change.seqMark)
      return Promise.resolve()
    },
  }
}
