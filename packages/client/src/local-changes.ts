/**
 * Feeds a document's local changes to the {@link Coalescer} as cheaply as Yjs allows.
 *
 * Every change is seen in `afterTransactionCleanup`, which costs Yjs nothing. The `update` event
 * makes Yjs encode every transaction, so it is listened to only while the coalescer can use the
 * encoded updates ({@link Coalescer.wantsUpdates}); beyond that, local changes are counted unencoded
 * and the flush diffs the document. Yjs emits `update` right after `afterTransactionCleanup`.
 */
import type * as Y from 'yjs'
import type { Coalescer } from './coalescer.ts'

/** Whether `transaction` changed the document: exactly when Yjs would emit an `update` for it. */
export function hasChanges(transaction: Y.Transaction): boolean {
  if (transaction.deleteSet.clients.size > 0) return true
  for (const [client, clock] of transaction.afterState) if (transaction.beforeState.get(client) !== clock) return true
  return false
}

/** The client ids whose structs `transaction` added (a local edit: the page's id). */
export function writersOf(transaction: Y.Transaction): number[] {
  const ids: number[] = []
  for (const [client, clock] of transaction.afterState)
    if (transaction.beforeState.get(client) !== clock) ids.push(client)
  return ids
}

export interface LocalChangesOptions {
  readonly doc: Y.Doc
  readonly coalescer: Coalescer
  /** Transactions whose changes are not local edits: never sent (remote) or not changes at all (load). */
  readonly remoteOrigin: unknown
  readonly loadOrigin: unknown
  /** The page-hide rescue folded in: a change (checkpointed) the binding sends itself, only its own part. */
  readonly rescueOrigin?: unknown
  /** Whether the binding still runs (a closed one stops listening). */
  readonly active: () => boolean
  /** After each local change was handed to the coalescer, with the client ids it wrote under. */
  readonly onLocalChange: (writers: readonly number[]) => void
  /** After each change, local or remote (not load). */
  readonly onAnyChange: () => void
}

export interface LocalChanges {
  /** Re-checks whether encoded updates are wanted (call after every flush). */
  sync(): void
  detach(): void
}

export function trackLocalChanges(o: LocalChangesOptions): LocalChanges {
  const isLocal = (origin: unknown): boolean =>
    origin !== o.remoteOrigin && (o.rescueOrigin === undefined || origin !== o.rescueOrigin)
  let listening = false
  let counted: Y.Transaction | null = null // counted unencoded, so its `update` (if any) is skipped
  const onUpdate = (update: Uint8Array, origin: unknown, _doc: Y.Doc, transaction: Y.Transaction): void => {
    if (origin === o.loadOrigin || !isLocal(origin) || transaction === counted) return
    const writers = writersOf(transaction)
    o.coalescer.push(update, writers) // any other origin is local
    o.onLocalChange(writers)
    sync()
  }
  const sync = (): void => {
    const want = o.active() && o.coalescer.wantsUpdates
    if (want === listening) return
    listening = want
    if (want) o.doc.on('update', onUpdate)
    else o.doc.off('update', onUpdate)
  }
  const onCleanup = (transaction: Y.Transaction): void => {
    const origin = transaction.origin
    if (origin === o.loadOrigin || !hasChanges(transaction)) return
    if (isLocal(origin) && !listening) {
      counted = transaction
      const writers = writersOf(transaction)
      o.coalescer.pushUnencoded(writers)
      o.onLocalChange(writers)
    }
    o.onAnyChange()
  }
  // Emitted after every `update` of the batch: the counted transaction can be let go.
  const release = (): void => {
    counted = null
  }
  sync()
  o.doc.on('afterTransactionCleanup', onCleanup)
  o.doc.on('afterAllTransactions', release)
  return {
    sync,
    detach() {
      o.doc.off('afterTransactionCleanup', onCleanup)
      o.doc.off('afterAllTransactions', release)
      o.doc.off('update', onUpdate)
      listening = false
    },
  }
}
