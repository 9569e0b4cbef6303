/**
 * `npm run soak [-- --seeds N --seed S --workload W --txns N --edits N --mode child|in-process]`:
 * runs N seeds (default 20; workloads rotate by seed) and prints every run and the totals. A failed
 * run prints its seed and the command that reruns it; the exit code is 1 if any failed.
 */
import { parseArgs } from 'node:util'
import { runSoak, WORKLOADS, type Workload } from './soak.ts'
import { runLine, summary } from './soak-report.ts'
import type { SidecarMode } from './sidecar-node.ts'

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '20' },
    seed: { type: 'string' },
    workload: { type: 'string' },
    txns: { type: 'string' },
    edits: { type: 'string', default: '600' },
    mode: { type: 'string', default: 'child' },
  },
})
const mode = values.mode as SidecarMode
if (mode !== 'child' && mode !== 'in-process') throw new Error('--mode must be child or in-process')
const workload = values.workload as Workload | undefined
if (workload !== undefined && !WORKLOADS.includes(workload))
  throw new Error(`--workload must be one of ${WORKLOADS.join(', ')}`)
const seeds =
  values.seed !== undefined ? [Number(values.seed)] : Array.from({ length: Number(values.seeds) }, (_, i) => i + 1)

// Turn a stop signal into a normal exit, so child sidecars are reaped (see SidecarNode).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

// Signal's pace in the toy: enforced unless E2E_COL_SOAK_SIGNAL_PACE says count or off.
const paceSetting = process.env['E2E_COL_SOAK_SIGNAL_PACE'] ?? 'enforce'
if (paceSetting !== 'enforce' && paceSetting !== 'count' && paceSetting !== 'off')
  throw new Error('E2E_COL_SOAK_SIGNAL_PACE must be enforce, count or off')
const pace: 'enforce' | 'count' | 'off' = paceSetting

const results = []
for (const seed of seeds) {
  const w = workload ?? (WORKLOADS[seed % WORKLOADS.length] as Workload)
  const options = {
    seed,
    workload: w,
    mode,
    signalPace: pace,
    randomEdits: Number(values.edits),
    convergeTimeoutMs: 120_000,
    stallMs: 120_000,
    ...(values.txns === undefined ? {} : { txnLimit: Number(values.txns) }),
  }
  let r
  try {
    r = await runSoak(options)
  } catch (error) {
    console.log(`FAIL seed=${seed} ${w}: ${error instanceof Error ? error.message : String(error)}`)
    console.log(
      `  rerun: npm run soak -- --seed ${seed} --workload ${w} --mode ${mode}${values.txns === undefined ? '' : ` --txns ${values.txns}`}`,
    )
    results.push({
      seed,
      workload: w,
      ok: false,
      failures: [String(error)],
      faults: {} as never,
      sends: 0,
      retries: 0,
      replaysAcked: 0,
      streamReconnects: 0,
      dedupHits: 0,
      ambiguous: 0,
      rateLimited: 0,
      deliveries: 0,
      durationMs: 0,
      convergeMs: 0,
      textLength: 0,
      refusedStarts: 0,
      sentKinds: {},
      signalRefused: 0,
    })
    continue
  }
  results.push(r)
  console.log(runLine(r))
  if (!r.ok) {
    for (const f of r.failures) console.log(`  ${f}`)
    console.log(
      `  rerun: npm run soak -- --seed ${seed} --workload ${w} --mode ${mode}${values.txns === undefined ? '' : ` --txns ${values.txns}`}`,
    )
  }
}
console.log(summary(results))
process.exit(results.every((r) => r.ok) ? 0 : 1)
