/**
 * Phase 1, the store: a sidecar never runs without it (exit 9, before any daemon call). Opens the
 * replica store (locking the data folder), loads every fixed document's replica and prunes sent ids
 * past their time to live.
 */
import { loadReplica, type DocReplica } from '../replica/replica.ts'
import { openReplicaStore, type ReplicaStore } from '../replica/store.ts'
import type { Basics, Phase } from './phase.ts'

export interface Stored {
  readonly store: ReplicaStore
  /** The fixed documents' replicas, by document id. */
  readonly replicas: ReadonlyMap<string, DocReplica>
}

export function openStore(b: Pick<Basics, 'config' | 'clock'>): Phase<Stored> {
  const store = openReplicaStore(b.config.replica.dataDir)
  try {
    const replicas = new Map<string, DocReplica>()
    for (const { docId } of b.config.documents) replicas.set(docId, loadReplica(store, docId))
    store.sentIds.prune(b.clock.now() - b.config.replica.sentIdsTtlMs)
    return { part: { store, replicas }, close: () => store.close() }
  } catch (error) {
    store.close() // releases the data folder's lock
    throw error
  }
}
