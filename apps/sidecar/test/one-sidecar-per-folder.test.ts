import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { loadConfig, startSidecar } from '../src/index.ts'
import { HOLDER_FILE } from '../src/replica/folder-lock.ts'
import { A, baseEnv, sidecar, startToy, tempDataDir } from './harness.ts'
import { runSidecar, spawnSidecar } from './child-sidecar.ts'
import { pageOn } from './ybrowser.ts'

/** A daemon URL that counts every request made to it (and answers none). */
async function countingDaemon(): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const server = createServer((_req, res) => {
    hits += 1
    res.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits }
}

describe('one sidecar per data folder', () => {
  it(
    "refuses a second sidecar on a live one's folder (exit 9), takes over after a SIGKILL, and is free again after a clean stop",
    // Four sidecar processes and an inspect start one after another: on a busy machine each start
    // under tsx can take several seconds, so the ceiling is the events', not a timing claim.
    { timeout: 120_000 },
    async () => {
      const toy = await startToy()
      const docId = randomUUID()
      const dir = tempDataDir()
      // The sent ids counted below are the page's edit: the announcement of its author is off here.
      const env = baseEnv(toy, A, docId, { E2E_COL_DATA_DIR: dir, E2E_COL_ANNOUNCE_AUTHORS: '0' })

      const first = spawnSidecar(env)
      const alice = await pageOn(docId, first.ready)

      // The second start is refused from the lock alone: its daemon is never asked anything.
      const daemon = await countingDaemon()
      const refused = await runSidecar({ ...env, SIGNAL_CLI_URL: daemon.url })
      expect(refused.code).toBe(9)
      expect(refused.stderr).toBe(
        `e2e-col-sidecar: replica store ${dir}: the data folder is in use by another sidecar (pid ${first.child.pid}); one sidecar per data folder\n`,
      )
      expect(refused.stderr).not.toContain(A.slice(3))
      expect(daemon.hits()).toBe(0)

      // The first one kept serving, and `inspect` reads the folder while it runs.
      alice.edit('still here;')
      await alice.until(() => alice.outbox.size === 0)
      const live = await runSidecar({}, ['inspect', '--doc', docId, '--data-dir', dir, '--json'])
      expect(live.code).toBe(0)
      expect(JSON.parse(live.stdout)).toMatchObject({ docId, sentIds: 1 })

      // A SIGKILLed sidecar leaves its holder file behind, but not the lock.
      first.child.kill('SIGKILL')
      expect((await first.exited).signal).toBe('SIGKILL')
      expect(existsSync(join(dir, HOLDER_FILE))).toBe(true)
      const second = spawnSidecar(env)
      await alice.connect(await second.ready)
      expect(alice.text).toBe('still here;')

      // A clean stop (SIGTERM) releases the folder at once.
      second.child.kill('SIGTERM')
      expect((await second.exited).code).toBe(0)
      expect(existsSync(join(dir, HOLDER_FILE))).toBe(false)
      const third = spawnSidecar(env)
      await third.ready
    },
  )

  it('releases the folder when a start fails after the store was opened', async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const dir = tempDataDir()
    const daemon = await countingDaemon()
    const start = startSidecar(
      loadConfig(baseEnv(toy, A, docId, { E2E_COL_DATA_DIR: dir, SIGNAL_CLI_URL: daemon.url })),
    )
    await expect(start).rejects.toMatchObject({ code: 'SIDECAR_DAEMON_UNREACHABLE' })
    expect(daemon.hits()).toBeGreaterThan(0)
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(false)
    await sidecar(baseEnv(toy, A, docId, { E2E_COL_DATA_DIR: dir }))
  })
})
