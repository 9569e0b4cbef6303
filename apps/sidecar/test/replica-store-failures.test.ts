import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { A, baseEnv, startToy } from './harness.ts'
import { runSidecar, spawnSidecar } from './child-sidecar.ts'
import { YBrowser } from './ybrowser.ts'

const isRoot = process.getuid?.() === 0

/** Mounts a tmpfs with `options` on a fresh folder (root only); the reason it could not, otherwise. */
function tmpfs(options: string): { dir: string } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-tmpfs-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  if (!isRoot) return { skip: 'mounting a tmpfs needs root' }
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (error) {
    return { skip: `mount -t tmpfs failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}` }
  }
  onTestFinished(() => void execFileSync('umount', ['-l', dir], { stdio: 'pipe' }))
  return { dir }
}

/** Writes until the file system says ENOSPC. */
function fill(dir: string): void {
  try {
    for (let i = 0; ; i++) writeFileSync(join(dir, `filler-${i}`), Buffer.alloc(16 * 1024, 1))
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
  }
}

function expectStoreRefusal(r: { code: number | null; stderr: string }, dir: string): void {
  expect(r.code).toBe(9)
  expect(r.stderr).toContain(`replica store ${dir}`)
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
}

describe('a store that cannot be opened or written stops the sidecar (exit 9)', () => {
  it('refuses to start on a read-only folder, naming the path', async (ctx) => {
    let dir: string
    if (isRoot) {
      const m = tmpfs('ro,size=64k')
      if ('skip' in m) {
        console.info(`skipped: ${m.skip}`)
        return ctx.skip()
      }
      dir = m.dir
    } else {
      dir = mkdtempSync(join(tmpdir(), 'e2e-col-ro-'))
      chmodSync(dir, 0o500)
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    }
    const toy = await startToy()
    const r = await runSidecar(baseEnv(toy, A, randomUUID(), { E2E_COL_DATA_DIR: dir }))
    expectStoreRefusal(r, dir)
    // The store is opened before the daemon is asked anything.
    expect(toy.sends()).toHaveLength(0)
  })

  it('refuses to start on a full disk', async (ctx) => {
    const m = tmpfs('size=64k')
    if ('skip' in m) {
      console.info(`skipped: ${m.skip}`)
      return ctx.skip()
    }
    fill(m.dir)
    const toy = await startToy()
    expectStoreRefusal(await runSidecar(baseEnv(toy, A, randomUUID(), { E2E_COL_DATA_DIR: m.dir })), m.dir)
  })

  it('stops, without acknowledging, when the disk fills while it runs', async (ctx) => {
    const m = tmpfs('size=1m')
    if ('skip' in m) {
      console.info(`skipped: ${m.skip}`)
      return ctx.skip()
    }
    const toy = await startToy()
    const docId = randomUUID()
    const s = spawnSidecar(baseEnv(toy, A, docId, { E2E_COL_DATA_DIR: m.dir }))
    const alice = new YBrowser(docId)
    await alice.connect(await s.ready)
    alice.edit('fits;')
    await alice.until(() => alice.outbox.size === 0)
    fill(m.dir)
    alice.edit('x'.repeat(300 * 1024))
    const exit = await s.exited
    expect(exit.code).toBe(9)
    expect(exit.stderr).toContain(`replica store ${join(m.dir, 'replica.sqlite3')}`)
    await alice.closed()
    expect(alice.outbox.size).toBe(1)
  })
})
