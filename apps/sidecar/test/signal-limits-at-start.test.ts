// A sidecar whose bounds Signal would refuse does not start: the check runs first, before the store
// or the daemon is touched, and names the variable (exit code 2, as any invalid configuration).
import { randomUUID } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadConfig, startSidecar } from '../src/index.ts'
import { exitCodeFor } from '../src/errors.ts'
import { A, tempDataDir } from './harness.ts'

describe("Signal's limits at start", () => {
  it('refuses a body bound over the content limit before it opens its store or calls the daemon', async () => {
    const dataDir = tempDataDir()
    const config = loadConfig({
      // Nothing listens there: reaching the daemon would fail with another code.
      SIGNAL_CLI_URL: 'http://127.0.0.1:9',
      SIGNAL_CLI_ACCOUNT: A,
      E2E_COL_DOCUMENTS: `${randomUUID()}=${Buffer.alloc(32, 1).toString('base64')}`,
      E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
      E2E_COL_DATA_DIR: dataDir,
      E2E_COL_LOG_LEVEL: 'silent',
    })
    const error = await startSidecar({ ...config, maxBodyBytes: 200_000 }).catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('E2E_COL_SIGNAL_BODY_MAX_BYTES'),
    })
    expect(exitCodeFor(error)).toBe(2)
    expect(readdirSync(dataDir)).toEqual([])
  })
})
