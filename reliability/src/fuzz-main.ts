/**
 * `npm run fuzz [-- --scale N --seed S]`: every fuzz target at its long-mode run count (at least
 * 10^6 cases in all at scale 1), printing per-target runs, cases, time and heap growth. A failure
 * prints fast-check's counterexample and the seed to rerun; the exit code is then 1.
 */
import { parseArgs } from 'node:util'
import { fuzzTarget, TARGETS } from './fuzz/runner.ts'

const LONG_RUNS: Record<string, number> = {
  'envelope decoding': 300_000,
  'body decoding': 200_000,
  'batch unpacking': 60_000,
  reassembly: 20_000,
  'events-stream ingest (every split)': 3_000,
  'group body ingest': 40_000,
  'JSON-RPC response handling': 100_000,
  'WebSocket frame handler': 30_000,
}

const { values } = parseArgs({ options: { scale: { type: 'string', default: '1' }, seed: { type: 'string' } } })
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed)
const scale = Number(values.scale)
console.log(`fuzz seed ${seed} (rerun: npm run fuzz -- --seed ${seed})`)
let total = 0
let failed = false
for (const t of TARGETS) {
  const runs = Math.max(1, Math.round((LONG_RUNS[t.name] ?? 10_000) * scale))
  try {
    const r = await fuzzTarget(t, runs, seed)
    total += r.cases
    console.log(
      `ok   ${r.name}: ${r.runs} inputs, ${r.cases} cases, ${(r.ms / 1000).toFixed(1)} s, heap +${r.heapGrowthMb.toFixed(1)} MB`,
    )
  } catch (error) {
    failed = true
    console.log(`FAIL ${t.name}: ${error instanceof Error ? error.message : String(error)}`)
  }
}
console.log(`fuzz: ${total} cases in total${failed ? ', FAILED' : ''}`)
process.exit(failed ? 1 : 0)
