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
 * folds it back in on the next load.
 */
export interface RescueSlot {
  /** Stores `state` (replacing any previous one); returns false when it does not fit. Never throws. */
  save(state: Uint8Array): boolean
  /** The saved state, if any (it stays until {@link clear}). */
  peek(): Uint8Array | undefined
  clear(): void
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
  return {
    rescue: {
      save(state) {
        rescued = state.slice()
        return true
      },
      peek: () => rescued,
      clear() {
        rescued = undefined
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
