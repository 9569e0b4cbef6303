import { defineConfig } from 'vitest/config'

/**
 * Two tiers, both in `npm test`. `unit`: every package's tests, bounded at 30 s each (set on the
 * command line). `stacks`: the suites that start whole stacks and replay traces (bench convergence,
 * browsers, soak), run after the unit tier with their own longer timeouts, so a busy machine slows
 * them without pushing them past a unit test's bound. Unset (a plain `npx vitest run <file>`): all.
 */
const STACKS = ['bench', 'apps/demo', 'reliability']
const UNITS = ['packages/*', 'apps/*', 'contract-tests', ...STACKS.map((p) => `!${p}`)]

const tier = process.env['E2E_COL_TEST_TIER']
if (tier !== undefined && tier !== 'unit' && tier !== 'stacks')
  throw new Error(`E2E_COL_TEST_TIER must be unit or stacks, not ${tier}`)

export default defineConfig({
  test: {
    projects:
      tier === 'unit'
        ? UNITS
        : tier === 'stacks'
          ? STACKS
          : ['packages/*', 'apps/*', 'contract-tests', 'bench', 'reliability'],
  },
})
