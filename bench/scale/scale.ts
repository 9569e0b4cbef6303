/**
 * `npm run bench -- --scale` (issue #41): the scale figures on today's code, each beside
 * y-websocket's and Hocuspocus's where one exists, same machine, same run. The sidecar runs as
 * installed (its dist/ built as `npm run pack:packages` builds it, under plain `node`); when the
 * build fails it runs its sources under tsx and every row says so. Sizes: `--quick`, or
 * `--scale-docs=100,1000`, `--scale-copies=4`, `--scale-members=2,50`, `--scale-window=45`,
 * `--scale-person-windows=6`.
 * Writes test-artifacts/bench-results/scale(.quick).json (git-ignored) and prints the docs/performance.md section.
 */
import { tmpdir } from 'node:os'
import { loadConfig } from '@e2e-col/sidecar'
import { PACING_DEFAULT, sidecarEnv, type Pacing } from '../stack.ts'
import { loadTrace, type TimedTrace } from '../traces.ts'
import { PERSON_AGENT, personSchedule, TIMING_TRACE, TYPING_TRACE, typingSchedule } from '../typing-speed.ts'
import { baselineTyping, bothDirections, type BaselineTyping, type DirectionRun } from './directions.ts'
import { groupRun, type GroupRun } from './groups.ts'
import { bareYdoc, baselineLargeDoc, buildBigDoc, sidecarLargeDoc, type LargeDocRun } from './large-doc.ts'
import { baselineDocs, sidecarDocs, type BaselineDocsRun, type DocsRun } from './lazy-memory.ts'
import { groupOfSidecars, type GroupSidecarsRun } from './group-sidecars.ts'
import { baselineJoin, buildJoinDoc, sidecarJoin, type JoinRun } from './joins.ts'
import { buildSidecar, type Memory, type Runtime } from './procs.ts'

export interface ScaleSizes {
  readonly documents: readonly number[]
  readonly copies: number
  readonly members: readonly number[]
  readonly windowSeconds: number
  /** One person's typing across the session: this many windows (typing-speed.ts `personSchedule`)… */
  readonly personWindows: number
  /** …of this many seconds each. */
  readonly personWindowSeconds: number
  readonly samples: number
  readonly updates: number
  readonly presenceSeconds: number
  /** The document a member joins and a relinked device catches up (its Yjs encoding, bytes). */
  readonly joinBytes: number
  /** Sidecars in the group where every member runs one (bench/scale/group-sidecars.ts). */
  readonly sidecars: number
}

export const SCALE_FULL: ScaleSizes = {
  documents: [100, 1000],
  copies: 4,
  members: [2, 50],
  windowSeconds: 45,
  personWindows: 6,
  personWindowSeconds: 20,
  samples: 12,
  updates: 50,
  presenceSeconds: 30,
  joinBytes: 10_000_000,
  sidecars: 50,
}
export const SCALE_QUICK: ScaleSizes = {
  documents: [20],
  copies: 1,
  members: [2, 10],
  windowSeconds: 8,
  personWindows: 2,
  personWindowSeconds: 4,
  samples: 4,
  updates: 10,
  presenceSeconds: 5,
  joinBytes: 1_000_000,
  sidecars: 5,
}

/** The sizes from the command line: `--quick` picks the small set; each `--scale-*=` replaces one. */
export function scaleSizes(argv: readonly string[]): ScaleSizes {
  const base = argv.includes('--quick') ? SCALE_QUICK : SCALE_FULL
  const flag = (name: string): string | undefined =>
    argv.find((a) => a.startsWith(`--scale-${name}=`))?.slice(`--scale-${name}=`.length)
  const list = (name: string, fallback: readonly number[]): number[] => {
    const given = (flag(name) ?? '')
      .split(',')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0)
    return given.length > 0 ? given : [...fallback]
  }
  const one = (name: string, fallback: number): number => {
    const n = Number(flag(name))
    return Number.isFinite(n) && n > 0 ? n : fallback
  }
  return {
    ...base,
    documents: list('docs', base.documents),
    copies: one('copies', base.copies),
    members: list('members', base.members),
    windowSeconds: one('window', base.windowSeconds),
    personWindows: one('person-windows', base.personWindows),
    joinBytes: one('join-bytes', base.joinBytes),
    sidecars: one('sidecars', base.sidecars),
  }
}

export interface ScaleResult {
  readonly command: string
  readonly runtime: Runtime
  readonly buildError?: string
  readonly sizes: ScaleSizes
  readonly documents: {
    readonly e2e: DocsRun[]
    /** The smallest size again with V8's default options: what the bin's options change, same run. */
    readonly e2eV8Defaults?: DocsRun
    /** The smallest size again from tsc's dist/, not bundled: what the bundle changes, same run. */
    readonly e2eUnbundled?: DocsRun
    readonly e2eTsx?: DocsRun
    readonly baselines: BaselineDocsRun[]
  }
  /** Absent with `--scale-documents-only` (as are `directions` and `groups`). */
  readonly largeDoc?: {
    readonly copies: number
    readonly operations: number
    readonly yjsEncodedBytes: number
    /** The sidecar's default history bound per document (E2E_COL_HISTORY_MAX_BYTES), from its config. */
    readonly historyBoundBytes: number
    readonly bareYdoc: { readonly before: Memory; readonly after: Memory }
    readonly runs: LargeDocRun[]
  }
  readonly directions?: { readonly pacing: Pacing; readonly runs: DirectionRun[] }[]
  /** The same typing replays through y-websocket and Hocuspocus (A → B). */
  readonly typingBaselines?: BaselineTyping[]
  readonly groups?: GroupRun[]
  /** A member added and a relinked device, at the sidecar's default bounds, and the baselines' fresh clients. */
  readonly joins?: JoinRun[]
  readonly groupOfSidecars?: GroupSidecarsRun
}

/** The history bound a sidecar started with the bench's settings and no override gets. */
function historyBound(): number {
  const layout = { toyUrl: 'http://127.0.0.1:9', docIds: [], groups: [], dataDir: tmpdir() }
  return loadConfig(sidecarEnv('a', { ...layout, options: { pacing: PACING_DEFAULT } })).history.retention.maxBytes
}

export async function benchScale(argv: readonly string[]): Promise<ScaleResult> {
  const sizes = scaleSizes(argv)
  const build = buildSidecar()
  const runtime = build.runtime
  const e2e: DocsRun[] = []
  const baselines: BaselineDocsRun[] = []
  for (const n of sizes.documents) {
    e2e.push(await sidecarDocs(runtime, n, true))
    for (const system of ['y-websocket', 'Hocuspocus'] as const) baselines.push(await baselineDocs(system, n))
  }
  const smallest = sizes.documents[0] ?? 100
  const built = runtime === 'node (bundled bin)'
  const e2eV8Defaults = built ? await sidecarDocs('node (bundled bin), V8 defaults', smallest, true) : undefined
  const e2eUnbundled = built ? await sidecarDocs('node (dist/ not bundled)', smallest, true) : undefined
  const e2eTsx = built ? await sidecarDocs('tsx (sources)', smallest, false) : undefined
  const command = `npm run bench -- --scale ${argv.filter((a) => a !== '--scale').join(' ')}`.trim()
  const documents = {
    e2e,
    ...(e2eV8Defaults === undefined ? {} : { e2eV8Defaults }),
    ...(e2eUnbundled === undefined ? {} : { e2eUnbundled }),
    ...(e2eTsx === undefined ? {} : { e2eTsx }),
    baselines,
  }
  const how = { runtime, ...(build.error === undefined ? {} : { buildError: build.error }) }
  // The documents' rows alone (the lazy replicas of decisions/0040), for a shorter run.
  if (argv.includes('--scale-documents-only')) return { command, ...how, sizes, documents }
  const big = buildBigDoc(sizes.copies)
  const largeRuns = [await sidecarLargeDoc(runtime, big)]
  if (built) largeRuns.push(await sidecarLargeDoc('node (bundled bin), V8 defaults', big))
  for (const system of ['y-websocket', 'Hocuspocus'] as const) largeRuns.push(await baselineLargeDoc(system, big))
  const trace = loadTrace(TYPING_TRACE)
  const timing = loadTrace<TimedTrace>(TIMING_TRACE)
  const offsets = typingSchedule(timing, sizes.windowSeconds * 1000)
  const personOffsets = personSchedule(timing, PERSON_AGENT, sizes.personWindowSeconds * 1000, sizes.personWindows)
  const directions = []
  // The default pacing, and the demo's (`npm start`: 5 sends/s, burst 20), where the asymmetry was seen.
  // One person's typing runs at the default pacing only: the target's.
  for (const pacing of [PACING_DEFAULT, { sendsPerSecond: 5, burst: 20 }]) {
    const person = pacing === PACING_DEFAULT ? { personOffsets } : {}
    const o = { runtime, pacing, samples: sizes.samples, trace, offsets, ...person }
    directions.push({ pacing, runs: await bothDirections(o) })
  }
  const typingBaselines: BaselineTyping[] = []
  for (const system of ['y-websocket', 'Hocuspocus'] as const)
    typingBaselines.push(await baselineTyping(system, { trace, offsets, personOffsets }))
  const groups: GroupRun[] = []
  for (const m of sizes.members)
    groups.push(await groupRun(runtime, m, { updates: sizes.updates, pages: 0, presenceMs: 0 }))
  const most = Math.max(...sizes.members)
  groups.push(await groupRun(runtime, most, { updates: 1, pages: most, presenceMs: sizes.presenceSeconds * 1000 }))
  const joins = await joinRuns(runtime, sizes.joinBytes)
  const groupOfSidecarsRun = await groupOfSidecars(runtime, sizes.sidecars)
  return {
    command,
    ...how,
    sizes,
    documents,
    largeDoc: {
      copies: big.copies,
      operations: big.operations,
      yjsEncodedBytes: big.update.byteLength,
      historyBoundBytes: historyBound(),
      bareYdoc: await bareYdoc(big),
      runs: largeRuns,
    },
    directions,
    typingBaselines,
    groups,
    joins,
    groupOfSidecars: groupOfSidecarsRun,
  }
}

/** The joins at the sidecar's own frame bound (the bench's stack raises it), beside the baselines. */
async function joinRuns(runtime: Runtime, bytes: number): Promise<JoinRun[]> {
  const doc = buildJoinDoc(bytes)
  const defaults = { E2E_COL_MAX_FRAME_BYTES: String(2 * 1024 * 1024) }
  const runs = await sidecarJoin(runtime, bytes, { doc, env: defaults, label: "the sidecar's default bounds" })
  for (const system of ['y-websocket', 'Hocuspocus'] as const) runs.push(await baselineJoin(system, bytes, doc))
  return runs
}
