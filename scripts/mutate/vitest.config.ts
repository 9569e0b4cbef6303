/**
 * The vitest configuration Stryker runs: only the test files of the folder being mutated
 * (`E2E_COL_MUTATE_TESTS`, comma-separated globs, set by scripts/mutate/run.ts).
 */
import { defineConfig } from 'vitest/config'
import { workspaceResolve } from '../../workspace-conditions.ts'

const tests = (process.env['E2E_COL_MUTATE_TESTS'] ?? '').split(',').filter((g) => g !== '')
if (tests.length === 0) throw new Error('E2E_COL_MUTATE_TESTS is empty: run mutation testing with `npm run mutate`')

export default defineConfig({
  ...workspaceResolve,
  test: {
    include: tests,
    setupFiles: ['scripts/mutate/fast-check-setup.ts'],
    // A mutant can turn a loop endless or a wait unbounded: Stryker's own timeout catches those.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests that wait for something the code does at once (apps/chat/test/wait.ts) give a mutant
    // 3 s, not 10: a correct run takes milliseconds, and a broken one would spend the whole wait.
    env: { E2E_COL_TEST_WAIT_MS: '3000' },
  },
})
