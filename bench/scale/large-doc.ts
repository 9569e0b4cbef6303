/**
 * Scale, one large document: the automerge-paper trace (B4, 259,778 operations) typed `copies`
 * times end to end into one Y.Text (4 × B4 ≈ 1M operations), put into a sidecar through a page,
 * then opened on a fresh page; its store on disk against Yjs's own encoding, and the sidecar's RSS
 * against a bare Y.Doc holding it in a plain `node` process. The baselines: the same document put
 * into y-websocket and Hocuspocus and opened on a fresh provider.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { inspectDocument } from '@e2e-col/sidecar/internals'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebSocket } from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { ACCOUNTS, connectBenchClient, PACING_OFF, untilDoc, untilSaved } from '../stack.ts'
import { hocuspocusClient } from './hocuspocus-client.ts'
import { REPLAY_TRACE } from '../trace-replay.ts'
import { applyPatches, loadTrace } from '../traces.ts'
import { Proc, scaleGroups, startSidecarProc, startToy, type Memory, type Runtime } from './procs.ts'

export interface BigDoc {
  readonly copies: number
  readonly operations: number
  readonly update: Uint8Array
  readonly text: string
  readonly buildMs: number
}

/** The trace typed `copies` times, each copy appended after the previous one, one transaction per keystroke. */
export function buildBigDoc(copies: number, keystrokes?: number): BigDoc {
  const trace = loadTrace(REPLAY_TRACE)
  const txns = keystrokes === undefined ? trace.txns : trace.txns.slice(0, keystrokes)
  const doc = new Y.Doc()
  const text = doc.getText('text')
  const started = performance.now()
  let operations = 0
  for (let c = 0; c < copies; c++) {
    const offset = text.length
    for (const txn of txns) {
      const shifted = txn.patches.map(([pos, del, ins]) => [pos + offset, del, ins] as const)
      doc.transact(() => applyPatches(text, shifted))
      operations += txn.patches.reduce((n, [, del, ins]) => n + del + ins.length, 0)
    }
  }
  const buildMs = performance.now() - started
  const update = Y.encodeStateAsUpdate(doc)
  const result = { copies, operations, update, text: text.toString(), buildMs }
  doc.destroy()
  return result
}

function dirBytes(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size
  return total
}

export interface LargeDocRun {
  readonly system: string
  /** From a fresh page's connect until its text equals the document's. */
  readonly openMs: number
  readonly rss: Memory
  /** e2e-col: the sidecar's data folder on disk (SQLite file and WAL). */
  readonly storeBytes?: number
  /** e2e-col: the document's update log in the store (what compaction bounds); the rest is history's. */
  readonly logBytes?: number
}

async function openFresh(url: string, docId: string, big: BigDoc): Promise<number> {
  const doc = new Y.Doc()
  const started = performance.now()
  const client = await connectBenchClient(url, docId, doc)
  const text = doc.getText('text')
  await untilDoc(doc, () => text.length === big.text.length, 'the large document on a fresh page')
  const ms = performance.now() - started
  if (text.toString() !== big.text) throw new Error('the large document did not converge on the fresh page')
  await client.connection.close()
  doc.destroy()
  return ms
}

export async function sidecarLargeDoc(
  runtime: Runtime,
  big: BigDoc,
  env: Readonly<Record<string, string>> = {},
): Promise<LargeDocRun> {
  const { docIds, groups } = scaleGroups(1, [ACCOUNTS.a, ACCOUNTS.b])
  const docId = docIds[0] ?? ''
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-scale-'))
  const toy = await startToy([ACCOUNTS.a, ACCOUNTS.b], groups, 'count')
  let proc: Proc | undefined
  try {
    const a = await startSidecarProc(runtime, 'a', { toyUrl: toy.url, docIds, groups, dataDir }, PACING_OFF, env)
    proc = a.proc
    // Put in through a page as one local change (a page's state from before it connected is not
    // pushed until the sidecar's own state reached it).
    const author = new Y.Doc()
    const client = await connectBenchClient(a.url, docId, author)
    Y.applyUpdate(author, big.update)
    await untilSaved(client.connection)
    await client.connection.close()
    author.destroy()
    const openMs = await openFresh(a.url, docId, big)
    return {
      system: `e2e-col, sidecar under ${runtime}`,
      openMs,
      rss: await a.proc.memory(),
      storeBytes: dirBytes(dataDir),
      logBytes: inspectDocument(join(dataDir, 'a'), docId).logBytes,
    }
  } finally {
    await proc?.stop()
    await toy.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** A provider on `room` holding `doc`, synced with the server. */
export async function baselineProvider(
  system: 'y-websocket' | 'Hocuspocus',
  url: string,
  room: string,
  doc: Y.Doc,
): Promise<{ destroy(): void }> {
  if (system === 'y-websocket') {
    const p = new WebsocketProvider(url, room, doc, { WebSocketPolyfill: WebSocket as never, disableBc: true })
    await new Promise<void>((resolve) => p.once('sync', () => resolve()))
    return p
  }
  return hocuspocusClient(url, room, doc)
}

export async function baselineLargeDoc(system: 'y-websocket' | 'Hocuspocus', big: BigDoc): Promise<LargeDocRun> {
  const proc = Proc.baseline()
  try {
    const { url } = await proc.start<{ url: string }>({
      type: 'start',
      kind: system === 'Hocuspocus' ? 'hocuspocus' : 'yws',
    })
    const author = new Y.Doc()
    Y.applyUpdate(author, big.update)
    // The author stays connected (Hocuspocus unloads a document its last connection left).
    const authorProvider = await baselineProvider(system, url, 'big', author)
    const fresh = new Y.Doc()
    const started = performance.now()
    const reader = await baselineProvider(system, url, 'big', fresh)
    const text = fresh.getText('text')
    await untilDoc(fresh, () => text.length === big.text.length, `the large document from ${system}`)
    const openMs = performance.now() - started
    if (text.toString() !== big.text) throw new Error(`the large document did not converge from ${system}`)
    reader.destroy()
    const rss = await proc.memory()
    authorProvider.destroy()
    return { system, openMs, rss }
  } finally {
    await proc.stop()
  }
}

/** A bare Y.Doc holding the document in a plain `node` process: RSS before and after. */
export async function bareYdoc(big: BigDoc): Promise<{ before: Memory; after: Memory }> {
  const proc = Proc.bareYdoc()
  try {
    return await proc.request<{ before: Memory; after: Memory }>(
      { type: 'load', update: Buffer.from(big.update).toString('base64') },
      'memory',
    )
  } finally {
    await proc.stop()
  }
}
