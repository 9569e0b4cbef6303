/**
 * The durable outbox: this page's changes the sidecar has not acknowledged yet.
 *
 * An entry is written to storage before it is sent (a change the sidecar may have seen is always
 * stored), resent with the same message id and seq on every connect, and forgotten only after the
 * sidecar's `ack` or a refusal that resending cannot cure. The storage deletion of a settled entry
 * rides on the next checkpoint write ({@link Outbox.takeSettled}). Every envelope of this sender,
 * stored or ephemeral, takes its seq from the one {@link SeqReservation} held here.
 */
import * as Y from 'yjs'
import { newMessageId } from './ids.ts'
import { SeqReservation } from './seq-reservation.ts'
import type { OutboxEntry, StorageCommit, StoredDoc } from './storage.ts'

// Sequence numbers are reserved in blocks so ephemeral messages (never stored) cannot reuse one after a reload.
export const SEQ_BLOCK = 4096

/** The binding's one ordered write path to storage. */
export interface OutboxWrites {
  /** Runs `task` after every earlier storage task; failures are reported there, never thrown. */
  chain(task: () => Promise<void>): void
  /** Writes `change` atomically; false when storage failed (already reported). */
  commit(change: StorageCommit): Promise<boolean>
}

export interface OutboxOptions {
  /** Unacknowledged updates above which they are merged into one entry while disconnected. */
  readonly compactAt: number
  readonly writes: OutboxWrites
  /** Whether a send now reaches the sidecar. */
  readonly connected: () => boolean
  /** Puts one entry on the wire. */
  readonly send: (entry: OutboxEntry) => void
  /** After a new entry was stored and sent at once (presence rides behind it). */
  readonly afterFirstSend: () => void
  /** {@link Outbox.pending} may have changed. */
  readonly onChange: () => void
}

/** What a sidecar's refusal did to the outbox. */
export type Rejection = 'reissued' | 'dropped' | 'kept'

export class Outbox {
  readonly #o: OutboxOptions
  readonly #entries = new Map<string, OutboxEntry>() // unacknowledged, by messageId, in seq order
  readonly #settled: number[] = [] // seqs acknowledged or given up, to delete with the next checkpoint
  #writing = 0 // entries being written, not yet in #entries
  #seq = new SeqReservation(0, SEQ_BLOCK, () => {})

  constructor(options: OutboxOptions) {
    this.#o = options
  }

  /** Changes not yet acknowledged, those still being written included. */
  get pending(): number {
    return this.#entries.size + this.#writing
  }

  /** The seq reservation's mark, to store along with the loaded state. */
  get seqMark(): number {
    return this.#seq.mark
  }

  /** Takes over the stored entries; numbering resumes above the stored mark and every stored seq. */
  restore(stored: StoredDoc): void {
    for (const entry of stored.outbox) this.#entries.set(entry.messageId, entry)
    const start = Math.max(stored.seqMark, ...stored.outbox.map((e) => e.seq + 1))
    this.#seq = new SeqReservation(start, SEQ_BLOCK, (mark) =>
      this.#o.writes.chain(async () => {
        await this.#o.writes.commit({ seqMark: mark })
      }),
    )
  }

  /** A seq for a message that is not kept (sync, presence): never one an entry holds. */
  nextSeq(): number {
    return this.#seq.take()
  }

  /** Stores a new local change, then sends it if connected (else it waits, compacted if many). */
  add(kind: OutboxEntry['kind'], payload: Uint8Array): void {
    this.#writing += 1
    this.#o.onChange()
    this.#o.writes.chain(async () => {
      const entry: OutboxEntry = { seq: this.#seq.take(), messageId: newMessageId(), kind, payload }
      await this.#o.writes.commit({ add: [entry], seqMark: this.#seq.mark })
      this.#entries.set(entry.messageId, entry)
      this.#writing -= 1
      if (this.#o.connected()) {
        this.#o.send(entry)
        this.#o.afterFirstSend()
      } else await this.compactIfNeeded()
      this.#o.onChange()
    })
  }

  /** Sends every unacknowledged entry again, in seq order, with its first id and seq (on connect). */
  resendAll(): void {
    for (const entry of this.#entries.values()) this.#o.send(entry)
  }

  /** Merges waiting updates into one entry. Only while disconnected: connected, they may be in flight. */
  async compactIfNeeded(): Promise<void> {
    const updates = [...this.#entries.values()].filter((e) => e.kind === 'update')
    if (updates.length <= this.#o.compactAt || this.#o.connected()) return
    const merged: OutboxEntry = {
      seq: this.#seq.take(),
      messageId: newMessageId(),
      kind: 'update',
      payload: Y.mergeUpdates(updates.map((e) => e.payload)),
    }
    await this.#o.writes.commit({ add: [merged], remove: updates.map((e) => e.seq), seqMark: this.#seq.mark })
    for (const e of updates) this.#entries.delete(e.messageId)
    this.#entries.set(merged.messageId, merged)
  }

  /** The sidecar saved `messageId`. False when it is not an entry (ephemeral, compacted away, a duplicate ack). */
  ack(messageId: string): boolean {
    return this.#settle(messageId)
  }

  /**
   * The sidecar refused `messageId` with `remoteCode`. Another page of this document holds the id
   * (`SIDECAR_MESSAGE_ID_TAKEN`): the same change goes again under a fresh one. Signal refused it
   * after the sidecar saved it (`SIDECAR_SEND_REJECTED`), it is malformed (`PROTO_*`), or this
   * account only views the document (`SIDECAR_READ_ONLY`): resending would be refused again, so it
   * is dropped; its content stays in this document (for a viewer, only here). Anything else keeps
   * the entry for the next connect.
   */
  reject(messageId: string, remoteCode: string): Rejection {
    const entry = this.#entries.get(messageId)
    if (entry === undefined) return 'kept'
    if (remoteCode === 'SIDECAR_MESSAGE_ID_TAKEN') {
      this.#reissue(entry)
      return 'reissued'
    }
    if (
      remoteCode === 'SIDECAR_SEND_REJECTED' ||
      remoteCode === 'SIDECAR_READ_ONLY' ||
      remoteCode.startsWith('PROTO_')
    ) {
      this.#settle(messageId)
      return 'dropped'
    }
    return 'kept'
  }

  /** The seqs settled since the last call, for the checkpoint write to delete. */
  takeSettled(): number[] {
    return this.#settled.splice(0)
  }

  #settle(messageId: string): boolean {
    const entry = this.#entries.get(messageId)
    if (entry === undefined) return false
    this.#entries.delete(messageId)
    this.#settled.push(entry.seq)
    return true
  }

  /** Replaces an entry by the same change under a new message id, and sends it. */
  #reissue(entry: OutboxEntry): void {
    this.#entries.delete(entry.messageId)
    this.#writing += 1
    this.#o.writes.chain(async () => {
      const fresh: OutboxEntry = { ...entry, seq: this.#seq.take(), messageId: newMessageId() }
      await this.#o.writes.commit({ add: [fresh], remove: [entry.seq], seqMark: this.#seq.mark })
      this.#entries.set(fresh.messageId, fresh)
      this.#writing -= 1
      if (this.#o.connected()) this.#o.send(fresh)
      this.#o.onChange()
    })
  }
}
