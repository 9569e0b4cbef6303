/**
 * How long a test waits for something the code under test does at once. Generous, for a busy
 * machine; mutation runs shorten it (scripts/mutate/vitest.config.ts), where every broken mutant
 * would otherwise spend the whole deadline before failing.
 */
export const WAIT_MS = Number(process.env['E2E_COL_TEST_WAIT_MS'] ?? '10000')

/** `vi.waitFor(check, within)`: wait up to WAIT_MS. */
export const within = { timeout: WAIT_MS } as const
