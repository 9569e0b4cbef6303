/**
 * One soak run: a toy daemon with accounts A, B, C in one group, a sidecar per account, one
 * author per trace agent (two for random edits; A, B, then C) and a reader on C as `connectDoc` pages, faults on while the authors type, one
 * sidecar restart and one page reload mid-run. Then faults stop and everyone must converge.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeBody, decodeEnvelope, unpackBatch } from '@e2e-col/protocol'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { FaultInjector, DEFAULT_RATES, type FaultKind, type FaultRates } from './fault-injector.ts'
import { Page } from './page.ts'
import { seededStream } from './rng.ts'
import { SidecarNode, total, type SidecarMode } from './sidecar-node.ts'
import * as Y from 'yjs'
import { agentClientId, prepareTrace, type PreparedTrace } from './trace.ts'
import { checkRandomText, typeRandom, typeTrace, type RandomLedger } from './workloads.ts'

export const ACCOUNTS = ['+15550100001', '+15550100002', '+15550100003'] as const

export type Workload = 'concurrent_friendsforever' | 'concurrent_clownschool' | 'random'
export const WORKLOADS: readonly Workload[] = ['concurrent_friendsforever', 'concurrent_clownschool', 'random']

export interface SoakOptions {
  seed: number
  workload: Workload
  /** Trace transactions replayed (a prefix); default all. */
  txnLimit?: number
  /** Edits per random author. */
  randomEdits?: number
  mode: SidecarMode
  /** After the faults stop, how long convergence may take. */
  convergeTimeoutMs?: number
  /** Longest wait for a parent before the run counts as stalled. */
  stallMs?: number
  /** Overrides of the fault rates (e.g. to isolate one fault). */
  rates?: Partial<FaultRates>
  /**
   * How the toy applies Signal's pace (60 messages per sender and destination, refilled one per
   * second): `enforce` (default; past it, sends get RATE_LIMIT_FAILURE or -5), `count` (only
   * counted) or `off`. The soak's command line reads E2E_COL_SOAK_SIGNAL_PACE.
   */
  signalPace?: 'enforce' | 'count' | 'off'
  /** Skip the mid-run sidecar restart / page reload. */
  noRestart?: boolean
  noReload?: boolean
}

export interface SoakResult {
  seed: number
  workload: Workload
  ok: boolean
  failures: string[]
  faults: Record<FaultKind, number>
  sends: number
  retries: number
  replaysAcked: number
  streamReconnects: number
  dedupHits: number
  ambiguous: number
  rateLimited: number
  deliveries: number
  durationMs: number
  convergeMs: number
  textLength: number
  /** Sidecar starts refused (a fault hit a start-up probe) and retried. */
  refusedStarts: number
  /** Envelope kinds in the bodies the toy accepted (batches unpacked). */
  sentKinds: Record<string, number>
  /** Messages Signal's pace refused (or would have, when only counted). */
  signalRefused: number
}

/**
 * Sidecar settings of the soak: faster than production pacing so a run takes seconds, with the
 * same shape (retry, reconnect, catch-up sync). Documented in docs/reliability.md.
 */
export const SOAK_SIDECAR_ENV: Readonly<Record<string, string>> = {
  E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
  E2E_COL_SENDS_PER_SECOND: '200',
  E2E_COL_SEND_BURST: '50',
  E2E_COL_SEND_ATTEMPTS: '4',
  E2E_COL_RETRY_BASE_MS: '20',
  E2E_COL_RETRY_MAX_MS: '200',
  E2E_COL_RPC_TIMEOUT_MS: '2000',
  E2E_COL_RECONNECT_BASE_MS: '20',
  E2E_COL_RECONNECT_MAX_MS: '200',
  E2E_COL_SHUTDOWN_FLUSH_MS: '500',
  E2E_COL_SYNC_DELAY_MIN_MS: '5',
  E2E_COL_SYNC_DELAY_MAX_MS: '60',
  E2E_COL_LOG_LEVEL: 'silent',
}

const traces = new Map<string, PreparedTrace>()
function trace(name: string, limit: number | undefined): PreparedTrace {
  const key = `${name}:${limit ?? 'all'}`
  let t = traces.get(key)
  if (t === undefined) traces.set(key, (t = prepareTrace(name, limit)))
  return t
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const started = Date.now()
  // One generator per consumer: the incidents (drawn up front, then the restart pause), the
  // faults per send, the stream cuts, and each author. A seed thus fixes every random choice; what
  // the sidecars and sockets do in between is real timing and does not replay exactly.
  const rng = seededStream(o.seed, 'incidents')
  const cleanups: (() => Promise<void> | void)[] = []
  const failures: string[] = []
  const prepared = o.workload === 'random' ? undefined : trace(o.workload, o.txnLimit)
  let toy: ToySignal | undefined
  try {
    toy = await createToySignal({
      accounts: [...ACCOUNTS],
      groups: [{ name: 'soak', members: [...ACCOUNTS] }],
      faults: true,
      keepAliveMs: 1000,
      maxQueuedPerAccount: 100_000,
      signalPace: o.signalPace === 'off' ? false : o.signalPace === 'count' ? 'count' : true,
    })
    const daemon = toy
    cleanups.push(() => daemon.close())
    const docId = randomUUID()
    const groupId = toy.groups[0]?.id ?? ''
    const nodes = ACCOUNTS.map((account) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-soak-'))
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
      return new SidecarNode(
        {
          ...SOAK_SIDECAR_ENV,
          SIGNAL_CLI_URL: daemon.url,
          SIGNAL_CLI_ACCOUNT: account,
          E2E_COL_DOCUMENTS: `${docId}=${groupId}`,
          E2E_COL_DATA_DIR: dataDir,
        },
        o.mode,
      )
    })
    cleanups.push(async () => {
      for (const n of nodes) await n.stop().catch(() => {})
    })
    await Promise.all(nodes.map((n) => n.start()))
    const tag = `soak-${process.pid}-${o.seed}-${randomUUID().slice(0, 8)}`
    // One author per trace agent (two for random edits) on sidecars A, B, C in turn, plus a reader on C.
    const authors = prepared?.numAgents ?? 2
    const pageOn = (i: number, name: string) => {
      const node = nodes[i % nodes.length] as SidecarNode
      return new Page(name, docId, () => node.url, `${tag}-${name}`)
    }
    const pages = [...Array.from({ length: authors }, (_, i) => pageOn(i, `author-${i}`)), pageOn(2, 'reader')]
    cleanups.unshift(async () => {
      for (const p of pages) await p.close().catch(() => {})
    })
    await Promise.all(pages.map((p) => p.conn.ready))

    const injector = new FaultInjector(
      toy,
      { sends: seededStream(o.seed, 'faults'), cuts: seededStream(o.seed, 'cuts') },
      { ...DEFAULT_RATES, ...o.rates },
    )
    // Mid-run incidents, at seeded points of the authors' progress.
    const restartAt = 0.2 + rng() * 0.3
    const restartWho = Math.floor(rng() * 3)
    const reloadAt = 0.5 + rng() * 0.3
    const typists = Array.from({ length: authors }, (_, a) => a).filter(
      (a) => prepared === undefined || prepared.txns.some((t) => t.agent === a),
    )
    const reloadWho = typists[Math.floor(rng() * typists.length)] ?? 0
    let restarted: Promise<void> | undefined
    let reloaded = false
    const hooks = {
      // A large paste is a large deflated envelope in chunks: have Signal deliver all of it twice,
      // also across a sidecar's restart (delivered ids are kept in its store).
      beforeLargePaste: () => injector.redeliverNextChunked(),
      progress: async (author: number, fraction: number) => {
        if (!o.noRestart && restarted === undefined && fraction >= restartAt) {
          const node = nodes[restartWho] as SidecarNode
          injector.note('sidecar-restart')
          restarted = (async () => {
            await node.stop()
            await new Promise((r) => setTimeout(r, 200 + rng() * 500))
            await node.start()
            injector.note('sidecar-restart-done' as FaultKind)
          })()
        }
        if (!o.noReload && !reloaded && author === reloadWho && fraction >= reloadAt) {
          reloaded = true
          injector.note('page-reload')
          await (pages[author] as Page).reload()
        }
      },
    }
    injector.start()
    const stallMs = o.stallMs ?? 60_000
    let ledgers: RandomLedger[] = []
    try {
      if (prepared !== undefined) {
        await Promise.all(
          Array.from({ length: authors }, (_, a) => typeTrace(pages[a] as Page, a, prepared, hooks, stallMs)),
        )
      } else {
        const edits = o.randomEdits ?? 300
        ledgers = await Promise.all(
          Array.from({ length: authors }, (_, a) => a).map((a) =>
            typeRandom(pages[a] as Page, a, edits, seededStream(o.seed, `author-${a}`), hooks),
          ),
        )
      }
      await restarted
    } catch (error) {
      // A stall: say which incidents happened, for the rerun.
      const clocks =
        prepared === undefined
          ? ''
          : `; agent clocks per page ${pages.map((p) => `${p.name}=${Array.from({ length: authors }, (_, a) => Y.getState(p.doc.store, agentClientId(a))).join(',')}${p.doc.store.pendingStructs === null ? '' : '+pending'}`).join(' ')}`
      const context = `sidecar ${'ABC'[restartWho]} restart ${restarted === undefined ? 'not yet' : 'done'}, page ${reloaded ? reloadWho : 'none'} reloaded${clocks}`
      throw new Error(`${error instanceof Error ? error.message : String(error)}; ${context}`, { cause: error })
    } finally {
      injector.stop()
    }
    injector.counts.delete('sidecar-restart-done' as FaultKind)
    const faultsOff = Date.now()
    const lastFault = Math.max(injector.lastFaultAt, faultsOff)

    // Convergence: every page equal to the expected text, every outbox empty.
    const expected = (): string | undefined => prepared?.endContent ?? (pages[0] as Page).text
    const converged = () => {
      const want = expected()
      return pages.every((p) => p.text === want && p.conn.status().pending === 0)
    }
    const deadline = Date.now() + (o.convergeTimeoutMs ?? 60_000)
    while (!converged() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
    const convergeMs = Date.now() - lastFault
    for (const p of pages) {
      const want = expected()
      if (p.text !== want)
        failures.push(`${p.name}: text differs (${p.text.length} chars, want ${want?.length ?? '?'})`)
      const pending = p.conn.status().pending
      if (pending !== 0) failures.push(`${p.name}: ${pending} local changes never acknowledged`)
      const dups = p.deliveries.duplicates()
      if (dups.length > 0) {
        const kinds = [...new Set(dups.map((k) => p.deliveries.kinds.get(k)))].join(',')
        failures.push(
          `${p.name}: ${dups.length} envelopes (${kinds}) delivered more than once (e.g. ${dups[0]}); sidecar ${'ABC'[restartWho]} was restarted, reader is on C`,
        )
      }
    }
    if (prepared === undefined) {
      const why = checkRandomText((pages[0] as Page).text, ledgers)
      if (why !== undefined) failures.push(`random edits: ${why}`)
    }
    await Promise.all(nodes.map((n) => n.scrape().catch(() => {})))
    const sum = (name: string) => nodes.reduce((n, node) => n + total(node.metrics(), name), 0)
    const faults = Object.fromEntries(injector.counts) as Record<FaultKind, number>
    return {
      seed: o.seed,
      workload: o.workload,
      ok: failures.length === 0,
      failures,
      faults,
      sends: injector.sendsSeen,
      retries: sum('e2e_col_send_retries_total'),
      replaysAcked: sum('e2e_col_replays_acked_total'),
      streamReconnects: sum('e2e_col_events_stream_reconnects_total'),
      dedupHits: sum('e2e_col_dedup_hits_total'),
      ambiguous: sum('e2e_col_send_failures_total'),
      rateLimited: sum('e2e_col_send_rate_limited_total'),
      deliveries: pages.reduce((n, p) => n + [...p.deliveries.counts.values()].reduce((a, b) => a + b, 0), 0),
      durationMs: Date.now() - started,
      convergeMs,
      textLength: (pages[0] as Page).text.length,
      refusedStarts: nodes.reduce((n, node) => n + node.refusedStarts, 0),
      sentKinds: sentKinds(daemon),
      signalRefused: daemon.refused().messages,
    }
  } finally {
    for (const c of cleanups) await c()
  }
}

function sentKinds(toy: ToySignal): Record<string, number> {
  const kinds: Record<string, number> = {}
  const add = (k: string) => (kinds[k] = (kinds[k] ?? 0) + 1)
  for (const s of toy.sends()) {
    try {
      const env = decodeEnvelope(decodeBody(s.message))
      if (env.kind === 'batch') for (const inner of unpackBatch(env)) add(inner.kind)
      else add(env.kind)
    } catch {
      add('undecodable')
    }
  }
  return kinds
}
