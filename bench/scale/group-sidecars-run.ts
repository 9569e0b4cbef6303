/**
 * `npx tsx --conditions=@e2e-col/source bench/scale/group-sidecars-run.ts --members=50` (issue #41,
 * "Groups of 50"): `members` real sidecars in one group on the toy (bench/scale/group-sidecars.ts).
 * Options: `--members=50,10` (each size in turn), `--batch=5` (sidecars started at once),
 * `--pages=N` (bench pages on the first N sidecars; all by default), `--updates=10`, `--quiet=15`
 * (seconds without a send that count as quiet), `--no-build` (run the sidecar's dist/ as it is),
 * `--unbundled` (tsc's dist/ instead of the bin's bundle).
 * Prints the rows and writes test-artifacts/bench-results/group-sidecars-<members>.json (git-ignored).
 */
import { IGNORED_RESULTS, write } from '../sections.ts'
import { GROUP_SIDECARS_DEFAULTS, groupOfSidecars, printGroupSidecars } from './group-sidecars.ts'
import { buildSidecar, type Runtime } from './procs.ts'

const argv = process.argv.slice(2)
const flag = (name: string): string | undefined =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(`--${name}=`.length)
const positive = (name: string): number | undefined => {
  const n = Number(flag(name))
  return Number.isFinite(n) && n > 0 ? n : undefined
}

const sizes = (flag('members') ?? '50')
  .split(',')
  .map(Number)
  .filter((n) => Number.isInteger(n) && n >= 2)
const options = {
  batch: positive('batch') ?? GROUP_SIDECARS_DEFAULTS.batch,
  pages: positive('pages') ?? GROUP_SIDECARS_DEFAULTS.pages,
  updates: positive('updates') ?? GROUP_SIDECARS_DEFAULTS.updates,
  quietMs: (positive('quiet') ?? GROUP_SIDECARS_DEFAULTS.quietMs / 1000) * 1000,
}

let runtime: Runtime = 'node (bundled bin)'
if (!argv.includes('--no-build')) {
  const build = buildSidecar()
  runtime = build.runtime
  if (build.error !== undefined) console.log(`the sidecar's build failed; its sources run under tsx: ${build.error}`)
}
if (argv.includes('--unbundled') && runtime === 'node (bundled bin)') runtime = 'node (dist/ not bundled)'
const command = `npx tsx --conditions=@e2e-col/source bench/scale/group-sidecars-run.ts ${argv.join(' ')}`.trim()
console.log(`\n## Group of sidecars (issue #41): \`${command}\``)
for (const members of sizes) {
  const started = performance.now()
  const run = await groupOfSidecars(runtime, members, options)
  console.log(printGroupSidecars(run))
  console.log(`\n(${members} members: ${((performance.now() - started) / 1000).toFixed(0)} s)`)
  write(`group-sidecars-${members}`, false, { command, ...run }, IGNORED_RESULTS)
}
