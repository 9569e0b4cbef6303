/**
 * Scale, documents: a sidecar with N documents mapped, from fork to ready and idle (once its RSS
 * stopped changing by itself, then after a full collection), then incoming traffic to every document round-robin (one edit each from the peer's
 * sidecar, through the toy); the baselines holding N documents (one small edit each, clients gone:
 * y-websocket keeps them, Hocuspocus unloads them).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebSocket } from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { ACCOUNTS, connectBenchClient, PACING_OFF, untilDoc, untilSaved } from '../stack.ts'
import { hocuspocusClient } from './hocuspocus-client.ts'
import { Proc, scaleGroups, startSidecarProc, startToy, type Memory, type Runtime, type Settled } from './procs.ts'

export interface DocsRun {
  readonly documents: number
  readonly runtime: Runtime
  readonly readyMs: number
  /** Documents in memory at ready (up to the bound), and how long until the quiet ones left. */
  readonly atReady: { readonly inMemory: number; readonly emptiedMs: number }
  /** Once the documents left memory: RSS settled by itself, then after a forced collection. */
  readonly settled: Settled
  readonly idle: Memory
  /** After one incoming edit to every document, round-robin: without a collection, then after one. */
  readonly afterTraffic?: {
    readonly peak: Memory
    readonly collected: Memory
    readonly ms: number
    /** The most documents in memory seen during the traffic (sampled once per turn). */
    readonly mostInMemory: number
  }
}

/** The bench's quiet period (E2E_COL_EVICT_AFTER_MS), so a run waits seconds, not the default minute. */
export const BENCH_EVICT_AFTER_MS = 2000
const LAZY = { E2E_COL_EVICT_AFTER_MS: String(BENCH_EVICT_AFTER_MS) }

async function inMemory(url: string): Promise<number> {
  const text = await (await fetch(`${url.replace('ws://', 'http://')}/metrics`)).text()
  return Number(/^e2e_col_documents_in_memory (\d+)/m.exec(text)?.[1] ?? Number.NaN)
}

/** Waits until no document is in memory (the quiet period passed); how long that took. */
async function untilEmpty(url: string): Promise<number> {
  const started = performance.now()
  while ((await inMemory(url)) > 0) {
    if (performance.now() - started > 120_000) throw new Error('documents stayed in memory for 2 minutes')
    await new Promise((r) => setTimeout(r, 200))
  }
  return performance.now() - started
}

export interface BaselineDocsRun {
  readonly system: 'y-websocket' | 'Hocuspocus'
  readonly documents: number
  readonly readyMs: number
  /** Empty: RSS settled by itself, then after a forced collection. */
  readonly settled: Settled
  readonly idle: Memory
  /** After one edit to every document (a client each, connected in turn and closed). */
  readonly afterTraffic: Memory
  readonly ms: number
}

/** The documents in order, `TURN` at a time (round-robin traffic, as many pages at once as a busy sidecar sees). */
const TURN = 20
async function inTurns(items: readonly string[], each: (item: string) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += TURN) await Promise.all(items.slice(i, i + TURN).map(each))
}

export async function sidecarDocs(runtime: Runtime, documents: number, traffic: boolean): Promise<DocsRun> {
  const { docIds, groups } = scaleGroups(documents, [ACCOUNTS.a, ACCOUNTS.b])
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-scale-'))
  const toy = await startToy([ACCOUNTS.a, ACCOUNTS.b], groups, 'count')
  const procs: Proc[] = []
  try {
    const layout = { toyUrl: toy.url, docIds, groups, dataDir }
    const a = await startSidecarProc(runtime, 'a', layout, PACING_OFF, LAZY)
    procs.push(a.proc)
    const loaded = await inMemory(a.url)
    const atReady = { inMemory: loaded, emptiedMs: await untilEmpty(a.url) }
    const settled = await a.proc.settled()
    const idle = await a.proc.memory()
    if (!traffic) return { documents, runtime, readyMs: a.proc.readyMs, atReady, settled, idle }
    const b = await startSidecarProc(runtime, 'b', layout, PACING_OFF)
    procs.push(b.proc)
    let mostInMemory = 0
    const started = performance.now()
    await inTurns(docIds, async (docId) => {
      const doc = new Y.Doc()
      const client = await connectBenchClient(b.url, docId, doc)
      doc.getText('text').insert(0, `edit of ${docId}`)
      await untilSaved(client.connection)
      await client.connection.close()
      doc.destroy()
      mostInMemory = Math.max(mostInMemory, await inMemory(a.url))
    })
    // The last document reaching A's replica: a page on A sees it.
    const last = docIds.at(-1) ?? ''
    const seen = new Y.Doc()
    const watcher = await connectBenchClient(a.url, last, seen)
    await untilDoc(seen, () => seen.getText('text').toString() === `edit of ${last}`, 'the last edit at A')
    const ms = performance.now() - started
    await watcher.connection.close()
    const peak = await a.proc.memory(false)
    await untilEmpty(a.url)
    const collected = await a.proc.memory()
    return {
      documents,
      runtime,
      readyMs: a.proc.readyMs,
      atReady,
      settled,
      idle,
      afterTraffic: { peak, collected, ms, mostInMemory },
    }
  } finally {
    for (let p = procs.pop(); p !== undefined; p = procs.pop()) await p.stop()
    await toy.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

type Provider = { destroy(): void }

/** A baseline client on `room` with one edit, synced; destroyed by the caller. */
async function baselineEdit(system: BaselineDocsRun['system'], url: string, room: string): Promise<Provider> {
  const doc = new Y.Doc()
  if (system === 'y-websocket') {
    const p = new WebsocketProvider(url, room, doc, { WebSocketPolyfill: WebSocket as never, disableBc: true })
    await new Promise<void>((resolve) => p.once('sync', () => resolve()))
    doc.getText('text').insert(0, `edit of ${room}`)
    return p
  }
  const client = await hocuspocusClient(url, room, doc)
  const p = client.provider
  doc.getText('text').insert(0, `edit of ${room}`)
  // Its update reaches the server before the socket closes: wait for the provider's unsynced count.
  await new Promise<void>((resolve) => {
    const check = (): void => {
      if (p.unsyncedChanges === 0) resolve()
      else setTimeout(check, 5)
    }
    check()
  })
  return client
}

export async function baselineDocs(system: BaselineDocsRun['system'], documents: number): Promise<BaselineDocsRun> {
  const proc = Proc.baseline()
  try {
    const { url } = await proc.start<{ url: string }>({
      type: 'start',
      kind: system === 'Hocuspocus' ? 'hocuspocus' : 'yws',
    })
    const settled = await proc.settled()
    const idle = await proc.memory()
    const started = performance.now()
    await inTurns(
      Array.from({ length: documents }, (_, i) => `scale-${i}`),
      async (room) => (await baselineEdit(system, url, room)).destroy(),
    )
    const ms = performance.now() - started
    // Let the server see the last sockets close.
    await new Promise((resolve) => setTimeout(resolve, 200))
    return { system, documents, readyMs: proc.readyMs, settled, idle, afterTraffic: await proc.memory(), ms }
  } finally {
    await proc.stop()
  }
}
