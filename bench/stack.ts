/**
 * The measured e2e-col pipe, in one Node process: the toy signal-cli daemon, sidecar A and sidecar
 * B (one account each, `documents` documents mapped to as many groups), and Node clients built with
 * `connectDoc` (memory storage, no page lifecycle) whose WebSockets are counted.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectDoc, createMemoryStorage, type ConnectDocOptions, type DocConnection } from '@e2e-col/client'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import * as Y from 'yjs'
import { countSends, type SendCounts } from './send-counts.ts'
import { countingWebSocket, WireCounter } from './wire-counter.ts'

/** Sidecar send pacing (E2E_COL_SENDS_PER_SECOND / E2E_COL_SEND_BURST). */
export interface Pacing {
  readonly sendsPerSecond: number
  readonly burst: number
}
/** The sidecar's defaults: what a real daemon should be given. */
export const PACING_DEFAULT: Pacing = { sendsPerSecond: 1, burst: 5 }
/** As high as the configuration allows: pacing never waits in these runs. */
export const PACING_OFF: Pacing = { sendsPerSecond: 1000, burst: 10_000 }

export const ACCOUNTS = { a: '+15555550101', b: '+15555550102' } as const

/**
 * How the toy applies Signal's pace (60 messages per sender and destination refilled one per
 * second, 50 uploads one per 1.2 s): enforced for runs at the default pacing, counted only (what
 * Signal would have refused) for runs with pacing off, which measure the machine. Set
 * E2E_COL_BENCH_SIGNAL_PACE to `enforce`, `count` or `off` to force one mode for every run.
 */
export function signalPaceFor(
  pacing: Pacing,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean | 'count' {
  const forced = env['E2E_COL_BENCH_SIGNAL_PACE']
  if (forced === 'enforce') return true
  if (forced === 'count') return 'count'
  if (forced === 'off') return false
  if (forced !== undefined && forced !== '')
    throw new Error(`E2E_COL_BENCH_SIGNAL_PACE must be enforce, count or off, not ${JSON.stringify(forced)}`)
  return pacing.sendsPerSecond <= PACING_DEFAULT.sendsPerSecond ? true : 'count'
}
export type Side = keyof typeof ACCOUNTS

export interface BenchStackOptions {
  readonly documents?: number
  readonly pacing: Pacing
  /** E2E_COL_SIGNAL_BODY_MAX_BYTES; above 2000 turns on E2E_COL_ALLOW_LONG_BODIES. Default 2000. */
  readonly bodyMaxBytes?: number
  /** Extra sidecar variables. */
  readonly env?: Readonly<Record<string, string>>
  /** Start sidecar A here (default) or leave it to the caller (e.g. in a child process). */
  readonly startA?: boolean
}

export interface BenchClient {
  readonly connection: DocConnection
  readonly wire: WireCounter
}

export interface BenchStack {
  readonly toy: ToySignal
  readonly docIds: readonly string[]
  /** Environment of a side's sidecar (to start it elsewhere). */
  env(side: Side): Record<string, string>
  sidecarUrl(side: Side): string
  setSidecarUrl(side: Side, url: string): void
  connect(side: Side, docId: string, doc: Y.Doc, options?: Partial<ConnectDocOptions>): Promise<BenchClient>
  /** Signal sends accepted by the toy (bodies), and their UTF-8 bytes. */
  signalSends(): SendCounts
  close(): Promise<void>
}

function groupId(label: string): string {
  return createHash('sha256').update(label).digest('base64')
}

export interface BenchGroup {
  readonly name: string
  readonly members: string[]
  readonly id: string
}

/** Documents, their groups and a temporary data directory (the caller removes it). */
export function benchLayout(options: Pick<BenchStackOptions, 'documents'>): {
  docIds: string[]
  groups: BenchGroup[]
  dataDir: string
} {
  const docIds = Array.from({ length: options.documents ?? 1 }, () => randomUUID())
  const groups = docIds.map((docId, i) => ({
    name: `bench ${i}`,
    members: [ACCOUNTS.a, ACCOUNTS.b],
    id: groupId(`bench ${docId}`),
  }))
  return { docIds, groups, dataDir: mkdtempSync(join(tmpdir(), 'e2e-col-bench-')) }
}

/** A side's sidecar environment. */
export function sidecarEnv(
  side: Side,
  {
    toyUrl,
    docIds,
    groups,
    dataDir,
    options,
  }: {
    toyUrl: string
    docIds: readonly string[]
    groups: readonly BenchGroup[]
    dataDir: string
    options: BenchStackOptions
  },
): Record<string, string> {
  const bodyMax = options.bodyMaxBytes ?? 2000
  return {
    SIGNAL_CLI_URL: toyUrl,
    SIGNAL_CLI_ACCOUNT: ACCOUNTS[side],
    E2E_COL_DOCUMENTS: docIds.map((d, i) => `${d}=${groups[i]?.id ?? ''}`).join(','),
    E2E_COL_SIGNAL_BODY_MAX_BYTES: String(bodyMax),
    E2E_COL_ALLOW_LONG_BODIES: bodyMax > 2000 ? '1' : '0',
    E2E_COL_LISTEN: '127.0.0.1:0',
    E2E_COL_DATA_DIR: join(dataDir, side),
    E2E_COL_SENDS_PER_SECOND: String(options.pacing.sendsPerSecond),
    E2E_COL_SEND_BURST: String(options.pacing.burst),
    // The bench's clients replay faster than a person types; the browser frame limit is not under test.
    E2E_COL_FRAMES_PER_SECOND: '100000',
    E2E_COL_FRAME_BURST: '100000',
    E2E_COL_MAX_CONNECTIONS_PER_DOC: '64',
    E2E_COL_MAX_FRAME_BYTES: String(64 * 1024 * 1024),
    E2E_COL_LOG_LEVEL: 'silent',
    ...options.env,
  }
}

/** A Node client (memory storage, no page lifecycle, counted WebSocket), connected and ready. */
export async function connectBenchClient(
  url: string,
  docId: string,
  doc: Y.Doc,
  extra: Partial<ConnectDocOptions> = {},
): Promise<BenchClient> {
  const wire = new WireCounter()
  const connection = connectDoc({
    doc,
    sidecarUrl: url,
    docId,
    storage: createMemoryStorage(),
    WebSocket: countingWebSocket(wire) as unknown as WebSocketConstructor,
    lifecycle: null,
    ...extra,
  })
  await connection.ready
  await untilConnected(connection)
  return { connection, wire }
}

function sidecarUrlOf(urls: Partial<Record<Side, string>>, side: Side): string {
  const url = urls[side]
  if (url === undefined) throw new Error(`sidecar ${side} is not running`)
  return url
}

/**
 * A stack's `connect`, whichever the topology: a bench client on the sidecar of `side` (its address
 * in `urls` while it runs), kept in `clients` for the stack's close to close.
 */
export function clientConnector(urls: Partial<Record<Side, string>>, clients: DocConnection[]): BenchStack['connect'] {
  return async (side, docId, doc, extra = {}) => {
    const client = await connectBenchClient(sidecarUrlOf(urls, side), docId, doc, extra)
    clients.push(client.connection)
    return client
  }
}

export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  const { docIds, groups, dataDir } = benchLayout(options)
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })]
  const closeAll = async (): Promise<void> => {
    for (let c = cleanups.pop(); c !== undefined; c = cleanups.pop()) await c()
  }
  try {
    const toy = await createToySignal({
      accounts: [ACCOUNTS.a, ACCOUNTS.b],
      groups,
      signalPace: signalPaceFor(options.pacing),
    })
    cleanups.push(() => toy.close())
    const env = (side: Side): Record<string, string> =>
      sidecarEnv(side, { toyUrl: toy.url, docIds, groups, dataDir, options })
    const urls: Partial<Record<Side, string>> = {}
    const start = async (side: Side): Promise<RunningSidecar> => {
      const sidecar = await startSidecar(loadConfig(env(side)))
      urls[side] = `ws://127.0.0.1:${sidecar.port}`
      cleanups.push(() => sidecar.close())
      return sidecar
    }
    if (options.startA !== false) await start('a')
    await start('b')
    const clients: DocConnection[] = []
    cleanups.push(async () => {
      for (const c of clients.splice(0)) await c.close()
    })
    return {
      toy,
      docIds,
      env,
      sidecarUrl: (side) => sidecarUrlOf(urls, side),
      setSidecarUrl: (side, url) => {
        urls[side] = url
      },
      connect: clientConnector(urls, clients),
      signalSends: () => countSends(toy.sends(), ACCOUNTS.a, toy.refused()),
      close: closeAll,
    }
  } catch (error) {
    await closeAll()
    throw error
  }
}

/**
 * How long a bench wait may take before it fails naming what it awaited: far above any paced
 * replay (the slowest full-mode section takes about two minutes), so only a hang reaches it.
 */
export const BENCH_WAIT_MS = 10 * 60_000

/** Resolves when `arm(resolve)` calls back; rejects after `timeoutMs` naming `what`. */
function bounded(what: string, timeoutMs: number, arm: (done: () => void) => () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let disarm: (() => void) | undefined
    const timer = setTimeout(() => {
      disarm?.()
      reject(new Error(`waited ${timeoutMs} ms for ${what}`))
    }, timeoutMs)
    disarm = arm(() => {
      clearTimeout(timer)
      disarm?.()
      resolve()
    })
  })
}

function untilConnected(connection: DocConnection, timeoutMs = BENCH_WAIT_MS): Promise<void> {
  if (connection.status().connection === 'connected') return Promise.resolve()
  return bounded('the client to connect', timeoutMs, (done) =>
    connection.on('status', (s) => s.connection === 'connected' && done()),
  )
}

/** Resolves when `done()` holds, checked after every update of `doc`; rejects after `timeoutMs`. */
export function untilDoc(
  doc: Y.Doc,
  done: () => boolean,
  what = 'the document to converge',
  timeoutMs = BENCH_WAIT_MS,
): Promise<void> {
  if (done()) return Promise.resolve()
  return bounded(what, timeoutMs, (finish) => {
    const check = (): void => {
      if (done()) finish()
    }
    doc.on('update', check)
    return () => doc.off('update', check)
  })
}

/** Resolves when the client has nothing unacknowledged; rejects after `timeoutMs`. */
export function untilSaved(connection: DocConnection, timeoutMs = BENCH_WAIT_MS): Promise<void> {
  if (connection.status().pending === 0) return Promise.resolve()
  return bounded(`every local change acknowledged (${connection.status().pending} pending)`, timeoutMs, (done) =>
    connection.on('saved', done),
  )
}

/** Clients A and B on one document, A's startup sync acknowledged: where every e2e-col run starts. */
export interface BenchPair {
  readonly a: BenchClient
  readonly docA: Y.Doc
  readonly docB: Y.Doc
}

export async function connectPair(stack: Pick<BenchStack, 'connect'>, docId: string): Promise<BenchPair> {
  const docA = new Y.Doc()
  const docB = new Y.Doc()
  const a = await stack.connect('a', docId, docA)
  await stack.connect('b', docId, docB)
  await untilSaved(a.connection)
  return { a, docA, docB }
}
