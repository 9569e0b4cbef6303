/**
 * `e2e-col-sidecar inspect --doc UUID`: opens the replica store read-only (safe while the sidecar
 * runs, and never creating anything) and reports one document: its stored size, its encoded state
 * size, a state vector summary and how many sent message ids are remembered.
 * @see docs/sidecar.md §8
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { CodedError } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { loadReplica } from '../replica/replica.ts'
import { openReplicaStore, STORE_FILE } from '../replica/store.ts'

/** No store looked in holds the document (exit code {@link INSPECT_UNKNOWN_EXIT}). */
export class InspectError extends CodedError<'INSPECT_UNKNOWN_DOCUMENT'> {}
/** The exit code of an {@link InspectError}: the sidecar's own codes end at 9. */
export const INSPECT_UNKNOWN_EXIT = 10

/** A store `inspect` may read: its folder and whose it is ("e2e-col up's", "Alice's in npm start"). */
export interface StorePlace {
  readonly dir: string
  readonly whose: string
}

/**
 * The stores to look in when none is named: `e2e-col up`'s (`<state>/sidecar`), the demo's two
 * (`.e2e-col-tmp/demo/<person>` from `cwd` up), and a bare sidecar's default; only those that exist.
 */
export function defaultStores(defaultDir: string, cwd: string): StorePlace[] {
  const places: StorePlace[] = [{ dir: join(defaultDir, 'sidecar'), whose: "e2e-col up's" }]
  for (let dir = cwd; ; dir = dirname(dir)) {
    const demo = join(dir, '.e2e-col-tmp', 'demo')
    if (existsSync(demo)) {
      places.push(
        { dir: join(demo, 'alice'), whose: "Alice's in npm start" },
        { dir: join(demo, 'bob'), whose: "Bob's in npm start" },
      )
      break
    }
    if (dirname(dir) === dir) break
  }
  places.push({ dir: defaultDir, whose: "the sidecar's default" })
  return places.filter((p) => existsSync(join(p.dir, STORE_FILE)))
}

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
 * Reads one document's report from the first of `places` that holds it; `alsoIn`: the others that do.
 * @throws InspectError when none holds it; StoreError when a store is unreadable or corrupt
 */
export function inspectFirst(
  places: readonly StorePlace[],
  docId: string,
): { report: DocReport; alsoIn: StorePlace[] } {
  const holding = places.filter((p) => holds(p.dir, docId))
  const first = holding[0]
  if (first === undefined)
    throw new InspectError(
      'INSPECT_UNKNOWN_DOCUMENT',
      places.length === 0
        ? `no document store found (looked for e2e-col up's, npm start's and the default): name one with --data-dir DIR`
        : `no store holds document ${docId} (looked in ${places.map((p) => `${p.whose}, ${p.dir}`).join('; ')}): check the id (e2e-col docs list shows it) or name the store with --data-dir DIR`,
    )
  return { report: inspectDocument(first.dir, docId), alsoIn: holding.slice(1) }
}

/** Whether the store in `dataDir` holds anything of the document. */
function holds(dataDir: string, docId: string): boolean {
  const store = openReplicaStore(dataDir, { readonly: true })
  try {
    return store.logSize(docId).rows > 0
  } finally {
    store.close()
  }
}

/**
 * Reads one document's report from the store in `dataDir`.
 * @throws StoreError when the store is missing, unreadable or corrupt; InspectError when it holds nothing of the document
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
    if (log.rows === 0)
      throw new InspectError(
        'INSPECT_UNKNOWN_DOCUMENT',
        `the store ${store.path} holds nothing of document ${docId}: check the id (e2e-col docs list shows it)`,
      )
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
