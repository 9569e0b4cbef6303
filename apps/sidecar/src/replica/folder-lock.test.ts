import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import { StoreError } from '../errors.ts'
import { HOLDER_FILE, lockDataFolder } from './folder-lock.ts'
import { openReplicaStore } from './store.ts'

const DOC = '0190a6c8-1111-4222-8333-444455556666'

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-lock-unit-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function refusal(fn: () => unknown): StoreError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError)
    return error as StoreError
  }
  throw new Error('expected a refusal')
}

/**
 * Another process that takes the folder's lock and holds it until killed. `drop: true` lets go of
 * the returned handle and forces garbage collection before it reports the lock taken.
 */
async function holderProcess(dir: string, { drop = false } = {}): Promise<{ pid: number; kill(): Promise<void> }> {
  const module = fileURLToPath(new URL('./folder-lock.ts', import.meta.url))
  const take = drop
    ? `lockDataFolder(${JSON.stringify(dir)}); for (let i = 0; i < 5; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)) }`
    : `globalThis.held = lockDataFolder(${JSON.stringify(dir)})`
  const code = `const { lockDataFolder } = await import(${JSON.stringify(module)}); ${take}; console.log('locked'); setInterval(() => {}, 60_000)`
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--conditions=@e2e-col/source', '--import', 'tsx', '--input-type=module', '-e', code],
    {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  onTestFinished(() => void child.kill('SIGKILL'))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve())
    void exited.then(() => reject(new Error(`lock holder exited: ${stderr}`)))
  })
  return { pid: child.pid ?? 0, kill: async () => void (child.kill('SIGKILL'), await exited) }
}

describe('one sidecar per data folder', () => {
  it('refuses a second lock in the same process, naming the folder and the pid, until the first is released', () => {
    const dir = tempDir()
    const first = lockDataFolder(dir)
    const e = refusal(() => lockDataFolder(dir))
    expect(e.code).toBe('SIDECAR_STORE_FAILED')
    expect(e.message).toBe(
      `replica store ${dir}: the data folder is in use by another sidecar (pid ${process.pid}); one sidecar per data folder`,
    )
    first.release()
    first.release()
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(false)
    lockDataFolder(dir).release()
  })

  it('refuses a lock held by another process, and takes it over once that process is SIGKILLed', async () => {
    const dir = tempDir()
    const holder = await holderProcess(dir)
    expect(refusal(() => lockDataFolder(dir)).message).toContain(`in use by another sidecar (pid ${holder.pid})`)
    await holder.kill()
    // The dead holder's sidecar.pid is still there; the lock itself died with the process.
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(true)
    const lock = lockDataFolder(dir)
    lock.release()
  })

  it('keeps the lock when the holder drops the returned handle and garbage collection runs', async () => {
    const dir = tempDir()
    const holder = await holderProcess(dir, { drop: true })
    expect(refusal(() => lockDataFolder(dir)).message).toContain(`in use by another sidecar (pid ${holder.pid})`)
    await holder.kill()
    lockDataFolder(dir).release()
  })

  it('names "another sidecar" when the holder file is missing or not ours to trust', () => {
    const dir = tempDir()
    const first = lockDataFolder(dir)
    onTestFinished(() => first.release())
    writeFileSync(join(dir, HOLDER_FILE), '{"pid":"+33600000001"}')
    expect(refusal(() => lockDataFolder(dir)).message).toContain(
      'in use by another sidecar; one sidecar per data folder',
    )
    rmSync(join(dir, HOLDER_FILE))
    expect(refusal(() => lockDataFolder(dir)).message).toContain(
      'in use by another sidecar; one sidecar per data folder',
    )
  })

  it('a writable store holds the lock until closed; a read-only one (inspect) neither needs nor takes it', () => {
    const dir = tempDir()
    const store = openReplicaStore(dir)
    store.appendUpdate(DOC, new Uint8Array([0, 0]))
    expect(refusal(() => openReplicaStore(dir)).message).toContain('in use by another sidecar')
    const ro = openReplicaStore(dir, { readonly: true })
    expect(ro.logSize(DOC).rows).toBe(1)
    ro.close()
    // The refused open left the first store working.
    store.appendUpdate(DOC, new Uint8Array([0, 0]))
    store.close()
    openReplicaStore(dir).close()
  })

  it('releases the lock when the store fails to open', () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'replica.sqlite3'),
      'not a database, but long enough to be read as a header by SQLite'.repeat(20),
    )
    refusal(() => openReplicaStore(dir))
    lockDataFolder(dir).release()
  })
})
