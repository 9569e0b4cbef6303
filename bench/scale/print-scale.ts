/** The scale section as printed (the docs/performance.md section, with its command line). */
import { mib, ms } from '../stats.ts'
import { printGroupSidecars } from './group-sidecars.ts'
import { printJoins } from './joins.ts'
import { SIDECAR_NODE_FLAGS, type Settled } from './procs.ts'
import type { ScaleResult } from './scale.ts'
import type { BaselineTyping, TypingFigures } from './directions.ts'

const yes = (ok: boolean): string => (ok ? 'met' : '**missed**')
const s = (millis: number): string => `${(millis / 1000).toFixed(2)} s`

/** Idle RSS settled by itself (after how long; "still moving" when it had not settled in a minute), then forced. */
function idleCell(run: { readonly settled: Settled; readonly idle: { readonly rss: number } }): string {
  const when = run.settled.stable ? `after ${s(run.settled.afterMs)}` : 'still moving after 60 s'
  return `${mib(run.settled.rss)} MiB (${when}) / ${mib(run.idle.rss)} MiB`
}

function printDocuments(r: ScaleResult): void {
  console.log('\n### Documents: idle memory, start to ready, incoming traffic\n')
  console.log(
    '| system | documents | fork to ready | in memory at ready | idle RSS: settled by itself (when) / then after a forced GC | after one incoming edit to each, RSS peak / after GC | most in memory | traffic took |',
  )
  console.log('|---|---|---|---|---|---|---|---|')
  const { e2e, e2eV8Defaults, e2eUnbundled, e2eTsx } = r.documents
  for (const d of [...e2e, ...[e2eV8Defaults, e2eUnbundled, e2eTsx].filter((run) => run !== undefined)]) {
    const t = d.afterTraffic
    console.log(
      `| e2e-col sidecar, ${d.runtime} | ${d.documents} | ${s(d.readyMs)} | ${d.atReady.inMemory} (all out after ${s(d.atReady.emptiedMs)}) | ${idleCell(d)} | ${t === undefined ? '–' : `${mib(t.peak.rss)} / ${mib(t.collected.rss)} MiB`} | ${t === undefined ? '–' : t.mostInMemory} | ${t === undefined ? '–' : s(t.ms)} |`,
    )
  }
  for (const b of r.documents.baselines)
    console.log(
      `| ${b.system} server, node | ${b.documents} | ${s(b.readyMs)} | – | ${idleCell(b)} (empty) | ${mib(b.afterTraffic.rss)} MiB after GC | – | ${s(b.ms)} |`,
    )
  const at = (n: number) => r.documents.e2e.find((d) => d.documents === n)
  const lines: string[] = []
  const d100 = at(100)
  const d1000 = at(1000)
  if (d100 !== undefined)
    lines.push(
      `idle RSS ≤ 70 MiB with 100 documents: ${yes(d100.settled.rss <= 70 * 2 ** 20)} (${mib(d100.settled.rss)} MiB settled)`,
    )
  if (d1000 !== undefined) {
    lines.push(
      `idle RSS ≤ 100 MiB with 1,000: ${yes(d1000.settled.rss <= 100 * 2 ** 20)} (${mib(d1000.settled.rss)} MiB settled)`,
    )
    lines.push(`start to ready ≤ 2 s with 1,000: ${yes(d1000.readyMs <= 2000)} (${s(d1000.readyMs)})`)
    const peak = d1000.afterTraffic?.peak.rss ?? Infinity
    lines.push(`traffic to 1,000 round-robin under 150 MiB: ${yes(peak < 150 * 2 ** 20)} (${mib(peak)} MiB)`)
  }
  for (const l of lines) console.log(`- ${l}`)
}

const bytes = (n: number | undefined, none: string): string => (n === undefined ? none : `${n.toLocaleString('en')} B`)

function printLargeDoc(r: ScaleResult): void {
  const l = r.largeDoc
  if (l === undefined) return
  const bare = l.bareYdoc.after.rss
  console.log(
    `\n### One large document: ${l.copies} × B4 (${l.operations.toLocaleString('en')} operations), Yjs's encoding ${l.yjsEncodedBytes.toLocaleString('en')} B\n`,
  )
  console.log(
    '| system | open on a fresh page | server RSS after GC | × a bare Y.Doc process | store on disk | × Yjs encoding | of it the update log | × Yjs encoding |',
  )
  console.log('|---|---|---|---|---|---|---|---|')
  console.log(
    `| bare Y.Doc in plain node | – | ${mib(bare)} MiB (${mib(l.bareYdoc.before.rss)} MiB before loading) | 1.00 | – | – | – | – |`,
  )
  const times = (n: number | undefined): string => (n === undefined ? '–' : (n / l.yjsEncodedBytes).toFixed(2))
  for (const run of l.runs)
    console.log(
      `| ${run.system} | ${ms(run.openMs)} ms | ${mib(run.rss.rss)} MiB | ${(run.rss.rss / bare).toFixed(2)} | ${bytes(run.storeBytes, '– (no persistence)')} | ${times(run.storeBytes)} | ${bytes(run.logBytes, '–')} | ${times(run.logBytes)} |`,
    )
  const e2e = l.runs[0]
  if (e2e !== undefined) {
    console.log(`- opens on a fresh page in ≤ 1 s: ${yes(e2e.openMs <= 1000)}`)
    console.log(`- sidecar RSS ≤ 1.5 × a bare Y.Doc's: ${yes(e2e.rss.rss <= 1.5 * bare)}`)
    console.log(
      `- update log ≤ 2 × Yjs's encoding: ${yes((e2e.logBytes ?? Infinity) <= 2 * l.yjsEncodedBytes)}; the rest of the store is history's (its versions and change log, bounded by E2E_COL_HISTORY_MAX_BYTES) and SQLite's`,
    )
    const bound = l.historyBoundBytes
    console.log(
      `- store ≤ 2 × Yjs's encoding + the history bound (${bound.toLocaleString('en')} B, the sidecar's default): ${yes((e2e.storeBytes ?? Infinity) <= 2 * l.yjsEncodedBytes + bound)}`,
    )
  }
}

function figures(t: Partial<TypingFigures> | undefined): string {
  if (t?.latencyMs === undefined) return '–'
  const rate = t.sendsPerMinute === undefined ? '' : ` (${t.sendsPerMinute.toFixed(1)})`
  return `${ms(t.latencyMs.p50)} / ${ms(t.latencyMs.p95)} / ${ms(t.latencyMs.p99)} ms${rate}`
}

/** y-websocket and Hocuspocus: no pacing, no Signal sends. */
export function baselineTypingRows(runs: readonly BaselineTyping[]): string[] {
  return runs.map((b) => `| – | ${b.system}, A → B | – | ${figures(b.typing)} | ${figures(b.personTyping)} |`)
}

function printDirections(r: ScaleResult): void {
  console.log("\n### Typing latency, both directions (Alice's sidecar started first, as `npm start` does)\n")
  console.log(
    "| pacing | direction | single keystroke, idle: p50 / p95 | two people's keystrokes, fastest stretch: p50 / p95 / p99 (sends a minute) | one person across the session: p50 / p95 / p99 (sends a minute) |",
  )
  console.log('|---|---|---|---|---|')
  for (const d of r.directions ?? [])
    for (const run of d.runs)
      console.log(
        `| ${d.pacing.sendsPerSecond}/s, burst ${d.pacing.burst} | ${run.direction} | ${ms(run.singleEditMs.p50)} / ${ms(run.singleEditMs.p95)} ms | ${figures(run.typing)} | ${figures(run.personTyping)} |`,
      )
  for (const row of baselineTypingRows(r.typingBaselines ?? [])) console.log(row)
  const paced = r.directions?.[0]?.runs ?? []
  const person = Math.max(...paced.map((p) => p.personTyping?.latencyMs.p50 ?? Infinity))
  const fastest = Math.max(...paced.map((p) => p.typing.latencyMs.p50))
  console.log(
    `- typing p50 ≤ 0.5 s at the default pacing, one person's typing across the session: ${yes(person <= 500)} (worst direction ${ms(person)} ms)`,
  )
  console.log(
    `- the same figure on two people's keystrokes through one sidecar in the session's fastest stretch (continuous typing, whose floor is half a send interval; docs/performance.md §13): ${ms(fastest)} ms`,
  )
}

function printGroups(r: ScaleResult): void {
  console.log('\n### Group size\n')
  console.log(
    '| members | Signal sends for one edit | receiver CPU per update (sidecar process) | presence: pages, sends by their sidecar in the window, pace bound |',
  )
  console.log('|---|---|---|---|')
  for (const g of r.groups ?? [])
    console.log(
      `| ${g.members} | ${g.sendsPerEdit} | ${g.presence === undefined ? `${(g.receiverCpuMicrosPerUpdate / 1000).toFixed(2)} ms (${g.updates} updates)` : '–'} | ${g.presence === undefined ? '–' : `${g.presence.pages} pages, ${g.presence.sends} sends in ${g.presence.seconds.toFixed(0)} s, bound ${g.presence.bound.toFixed(0)}`} |`,
    )
}

export function printScale(r: ScaleResult): void {
  console.log(`\n## Scale (issue #41): \`${r.command}\`\n`)
  console.log(
    `The sidecar runs ${r.runtime === 'node (bundled bin)' ? 'as installed: the bundle its bin runs (`apps/sidecar/dist/bundle/`, built from `tsc -b apps/sidecar/tsconfig.build.json` by `scripts/bundle-sidecar.ts`, both what `npm run pack:packages` packs), under plain `node` with the options its package gives its bin (`' + SIDECAR_NODE_FLAGS.join(' ') + '`; the rows marked "V8 defaults" without them, "dist/ not bundled" from tsc\'s output as it was before the bundle)' : `from its sources under tsx: the build failed (${r.buildError ?? ''})`}; the baselines (\`@y/websocket-server\` 0.1.1, \`@hocuspocus/server\` 3.4.4, no persistence) under plain \`node\`, in the same run.`,
  )
  printDocuments(r)
  if (r.largeDoc === undefined) return
  printLargeDoc(r)
  printDirections(r)
  printGroups(r)
  if (r.joins !== undefined) console.log(`\n### Joins at the default pacing\n\n${printJoins(r.joins)}`)
  if (r.groupOfSidecars !== undefined) console.log(printGroupSidecars(r.groupOfSidecars))
}
