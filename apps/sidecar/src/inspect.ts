/**
 * `e2e-col-sidecar inspect --doc UUID`: opens the replica store read-only (safe while the sidecar
 * runs, and never creating anything) and reports one document: its stored size, its encoded state
 * size, a state vector summary and how many sent message ids are remembered.
 * @see docs/sidecar.md §8
 */
import * as Y from 'yjs'
import { loadReplica } from './replica/replica.ts'
import { openReplicaStore } from './replica/store.ts'

export interface DocReport {
  docId: string
  store: string
  storeFileBytes: number
  logRows: number
  logBytes: number
  /** `Y.encodeStateAsUpdate(doc).length`: what a compacted log would hold. */
  stateBytes: number
  stateVector: { clients: number; items: number; top: { client: number; clock: number }[] }
  sentIds: number
}

// Clients listed in the summary, largest clocks first.
const TOP_CLIENTS = 5

/**
 * Reads one document's report from the store in `dataDir`.
 * @throws StoreError when the store is missing, unreadable or corrupt
 */
export function inspectDocument(dataDir: string, docId: string): DocReport {
  const store = openReplicaStore(dataDir, { readonly: true })
  try {
    // Loading read-only never compacts: the policy is given an unreachable row bound.
    const replica = loadReplica(store, docId, {
      maxRows: Number.POSITIVE_INFINITY,
      growthFactor: Number.POSITIVE_INFINITY,
      slackBytes: 0,
    })
    const log = store.logSize(docId)
    const sv = [...Y.decodeStateVector(Y.encodeStateVector(replica.doc))].map(([client, clock]) => ({ client, clock }))
    sv.sort((a, b) => b.clock - a.clock)
    return {
      docId,
      store: store.path,
      storeFileBytes: store.fileBytes(),
      logRows: log.rows,
      logBytes: log.bytes,
      stateBytes: Y.encodeStateAsUpdate(replica.doc).byteLength,
      stateVector: { clients: sv.length, items: sv.reduce((n, e) => n + e.clock, 0), top: sv.slice(0, TOP_CLIENTS) },
      sentIds: store.sentIds.count(docId),
    }
  } finally {
    store.close()
  }
}

/** The report as the lines `inspect` prints. */
export function formatReport(r: DocReport): string {
  const top = r.stateVector.top.map((e) => `${e.client}:${e.clock}`).join(' ')
  return [
    `document      ${r.docId}`,
    `store         ${r.store} (${r.storeFileBytes} bytes)`,
    `stored log    ${r.logRows} rows, ${r.logBytes} bytes`,
    `state         ${r.stateBytes} bytes encoded`,
    `state vector  ${r.stateVector.clients} clients, ${r.stateVector.items} items${top === '' ? '' : ` (top: ${top})`}`,
    `sent ids      ${r.sentIds} remembered`,
    '',
  ].join('\n')
}
