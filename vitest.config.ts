import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { defineConfig, type TestProjectConfiguration } from 'vitest/config'
import { workspaceResolve } from './workspace-conditions.ts'

/**
 * Two tiers, both in `npm test`. `unit`: every package's tests, bounded at 30 s each (set on the
 * command line). `stacks`: the suites that start whole stacks and replay traces (bench convergence,
 * browsers, soak), run after the unit tier with their own longer timeouts, so a busy machine slows
 * them without pushing them past a unit test's bound. Unset (a plain `npx vitest run <file>`): all.
 */
const STACKS = ['bench', 'apps/demo', 'apps/provider-conformance', 'reliability']
const folders = (parent: string): string[] =>
  readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${parent}/${entry.name}`)
const ALL = [
  ...folders('packages'),
  ...folders('apps').filter((dir) => !STACKS.includes(dir)),
  'contract-tests',
  ...STACKS,
]

const tier = process.env['E2E_COL_TEST_TIER']
if (tier !== undefined && tier !== 'unit' && tier !== 'stacks')
  throw new Error(`E2E_COL_TEST_TIER must be unit or stacks, not ${tier}`)

/**
 * A folder with its own vitest.config.ts is that project (it adds `workspaceResolve` itself);
 * any other folder is an inline project that extends this config, so it resolves the workspace
 * packages to their sources (a bare folder project would not inherit the conditions).
 */
function project(dir: string): TestProjectConfiguration {
  if (existsSync(`${dir}/vitest.config.ts`)) return dir
  const name = (JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { name: string }).name
  return { extends: true, test: { name, root: dir } }
}

export default defineConfig({
  ...workspaceResolve,
  test: {
    projects: (tier === 'unit' ? ALL.filter((dir) => !STACKS.includes(dir)) : tier === 'stacks' ? STACKS : ALL).map(
      project,
    ),
  },
})
