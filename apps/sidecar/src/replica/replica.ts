/**
 * One document's replica: a Y.Doc kept in memory, fed by every update, sync-response and snapshot
 * the sidecar carries in either direction, and backed by the store's update log. An update is
 * written (and synced) before `apply` returns, so whatever the sidecar forwards or acknowledges
 * afterwards is already on disk. The log is compacted into one state update by the policy in
 * compaction.ts. A log that does not load stops the sidecar: a replica never starts empty over
 * real data.
 * @see docs/sidecar.md §8
 */
import * as Y from 'yjs'
import { StoreError } from '../errors.ts'
import { DEFAULT_COMPACTION, shouldCompact, type CompactionPolicy } from './compaction.ts'
import { decodeExactStateVector, isExactUpdate } from './strict-yjs.ts'
import type { ReplicaStore, UpdateStamp } from './store.ts'

/** Where a change came from: this person's page, the sidecar itself, or a member (`author`: number or Signal id). */
export interface ChangeOrigin {
  readonly via: 'page' | 'member' | 'sidecar'
  readonly author?: string | undefined
}

/** Told around every applied change (the document's history, history/doc-history.ts). */
export interface ReplicaObserver {
  /** Before `origin`'s change touches the document. */
  before(origin: ChangeOrigin): void
  /** Inside the update log's transaction, before the update is appended: the stamp its row carries. */
  stamp?(origin: ChangeOrigin): UpdateStamp | undefined
  /** After it is applied and durable in the update log. */
  applied(update: Uint8Array, origin: ChangeOrigin): void
}

export interface DocReplica {
  readonly docId: string
  readonly doc: Y.Doc
  /**
   * Applies a Yjs update and appends it to the store. Returns false, storing nothing, when the
   * payload is not exactly one valid update (trailing bytes included).
   * @throws StoreError when the store cannot be written
   */
  apply(update: Uint8Array, origin?: ChangeOrigin): boolean
  /** Sets the one observer told around every applied change (undefined: none). */
  observe(observer: ReplicaObserver | undefined): void
  stateVector(): Uint8Array
  /** What a peer holding `stateVector` lacks. @throws Error when it is not exactly a state vector */
  diff(stateVector: Uint8Array): Uint8Array
  /** True when `stateVector` holds a clock range this replica lacks. @throws Error when invalid */
  lacksFrom(stateVector: Uint8Array): boolean
  /** Compactions done since load (for tests and metrics). */
  readonly compactions: number
  /**
   * This replica left memory (decisions/0040): `apply` refuses from now on, so nothing holding it
   * can write to the log behind the replica loaded after it.
   */
  close(): void
}

function strictStateVector(stateVector: Uint8Array): Uint8Array {
  if (decodeExactStateVector(stateVector) === undefined) throw new Error('not exactly one Yjs state vector')
  return stateVector
}

/**
 * Loads the document's log from the store into a fresh Y.Doc.
 * @throws StoreError when the store cannot be read or a row does not decode
 */
export function loadReplica(
  store: ReplicaStore,
  docId: string,
  policy: CompactionPolicy = DEFAULT_COMPACTION,
): DocReplica {
  const doc = new Y.Doc()
  const rows = store.loadUpdates(docId)
  doc.transact(() => {
    rows.forEach((row, i) => {
      try {
        Y.applyUpdate(doc, row)
      } catch (error) {
        throw new StoreError(
          store.path,
          `document ${docId}: update log row ${i + 1} of ${rows.length} does not decode; refusing to start with a partial replica`,
          { cause: error },
        )
      }
    })
  })
  let log = { rows: rows.length, bytes: rows.reduce((n, r) => n + r.byteLength, 0) }
  let baseBytes = rows.length === 1 ? log.bytes : 0
  let compactions = 0

  function compactIfDue(): void {
    if (!shouldCompact({ ...log, baseBytes }, policy)) return
    const state = Y.encodeStateAsUpdate(doc)
    store.replaceUpdates(docId, state)
    log = { rows: 1, bytes: state.byteLength }
    baseBytes = state.byteLength
    compactions += 1
  }
  compactIfDue()
  let observer: ReplicaObserver | undefined
  let closed = false

  return {
    docId,
    doc,
    apply(update, origin = { via: 'sidecar' }) {
      // Decoded whole first, so a malformed or padded one is refused before it touches the doc.
      if (closed || !isExactUpdate(update)) return false
      observer?.before(origin)
      try {
        Y.applyUpdate(doc, update)
      } catch {
        return false
      }
      // Stored even when it added nothing visible: it may hold structs Yjs keeps pending. The
      // observer's stamp is on the same row, in the same transaction: one synced write per change.
      store.atomically(() => store.appendUpdate(docId, update, observer?.stamp?.(origin)))
      log = { rows: log.rows + 1, bytes: log.bytes + update.byteLength }
      compactIfDue()
      observer?.applied(update, origin)
      return true
    },
    observe(next) {
      observer = next
    },
    stateVector: () => Y.encodeStateVector(doc),
    diff: (stateVector) => Y.encodeStateAsUpdate(doc, strictStateVector(stateVector)),
    lacksFrom(stateVector) {
      const ours = Y.decodeStateVector(Y.encodeStateVector(doc))
      for (const [client, clock] of Y.decodeStateVector(strictStateVector(stateVector)))
        if (clock > (ours.get(client) ?? 0)) return true
      return false
    },
    get compactions() {
      return compactions
    },
    close() {
      closed = true
    },
  }
}
