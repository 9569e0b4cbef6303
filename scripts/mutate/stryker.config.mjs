// @ts-check
/**
 * Stryker for one folder (E2E_COL_MUTATE_FOLDER), written by scripts/mutate/run.ts. Incremental:
 * the last run's results live in .mutation/ (ignored by git), so a rerun tests only the mutants
 * whose code or tests changed.
 */
const folder = process.env.E2E_COL_MUTATE_FOLDER
const slug = process.env.E2E_COL_MUTATE_SLUG
if (folder === undefined || slug === undefined) throw new Error('run mutation testing with `npm run mutate`')

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'scripts/mutate/vitest.config.ts', related: false },
  // Tests and their helpers are not mutated: `*.test.ts`, `*-fixture.ts` and any `test/` folder.
  mutate: [`${folder}/**/*.ts`, `!${folder}/**/*.test.ts`, `!${folder}/**/*-fixture.ts`, `!${folder}/**/test/**`],
  coverageAnalysis: 'perTest',
  // Mutants in module-level code (tables, constants) run on import, so each needs every test of
  // the folder; they are reported as ignored, not counted (see docs/decisions/0008-mutation-testing.md).
  ignoreStatic: true,
  incremental: true,
  incrementalFile: `.mutation/${slug}/incremental.json`,
  // The machine is shared: one or two test processes at most (E2E_COL_MUTATE_CONCURRENCY).
  concurrency: Number(process.env.E2E_COL_MUTATE_CONCURRENCY ?? '2'),
  // A mutant's tests may run this long past 3 × their normal time before it counts as timed out
  // (killed). E2E_COL_MUTATE_TIMEOUT_MS lowers it where many mutants hang on a wait (the provider's).
  timeoutMS: Number(process.env.E2E_COL_MUTATE_TIMEOUT_MS ?? '10000'),
  timeoutFactor: 3,
  tempDirName: `.mutation/${slug}/sandbox`,
  cleanTempDir: true,
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: `.mutation/${slug}/report.json` },
  htmlReporter: { fileName: `.mutation/${slug}/report.html` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: true },
  thresholds: { high: 90, low: 85, break: null },
  ignorePatterns: ['.mutation', 'test-artifacts', '.e2e-col-tmp', 'bench/results', 'docs'],
  disableTypeChecks: `${folder}/**/*.ts`,
  checkers: [],
}
