/**
 * `npm start` itself (scripts/start.ts, as a process): it names its sidecars in its folder, so
 * `e2e-col docs` run from the repository finds them by person (no port, no address); `a` + Enter
 * in its terminal stops Alice's sidecar and the CLI says how to start it again; `a` again starts
 * it; Ctrl-C removes the file.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SIDECAR_BIN = fileURLToPath(new URL('../../sidecar/bin/e2e-col-sidecar.js', import.meta.url))

/** The `npm start` process, with its output read line by line. */
function npmStart(demoDir: string): { child: ChildProcessWithoutNullStreams; line: (re: RegExp) => Promise<string> } {
  const child = spawn(process.execPath, ['--conditions=@e2e-col/source', '--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, E2E_COL_DEMO_DIR: demoDir },
  })
  let out = ''
  let seen = 0
  const waiters: { re: RegExp; resolve: (line: string) => void }[] = []
  const check = (): void => {
    const lines = out.split('\n')
    for (; seen < lines.length - 1; seen++)
      for (const w of waiters.filter((x) => x.re.test(lines[seen] ?? ''))) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(lines[seen] ?? '')
      }
  }
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString()
    check()
  })
  child.stderr.on('data', (d: Buffer) => process.stderr.write(d))
  // Each wait looks only at lines printed after it was asked for.
  const line = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      waiters.push({ re, resolve })
      child.once('exit', (code) => reject(new Error(`npm start exited (${code}) before ${re}:\n${out}`)))
    })
  return { child, line }
}

/** `e2e-col docs …` as a person runs it (the sidecar's binary, which `e2e-col docs` hands it to). */
function docs(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SIDECAR_BIN, 'docs', ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '' },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })))
}

describe('npm start: its sidecars found by person, one stopped and started from its terminal', () => {
  const root = mkdtempSync(join(tmpdir(), 'e2e-col-npm-start-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('names its sidecars; docs --as finds them; a + Enter stops and starts Alice’s; Ctrl-C removes the file', async () => {
    const demoDir = join(root, '.e2e-col-tmp', 'demo')
    const { child, line } = npmStart(demoDir)
    try {
      await line(/^Press Ctrl-C to stop\.$/)
      const file = join(demoDir, 'sidecars.json')
      const named = JSON.parse(readFileSync(file, 'utf8')) as { sidecars: { name: string; url: string }[] }
      expect(named.sidecars.map((s) => s.name)).toEqual(['Alice', 'Bob'])
      const alice = named.sidecars[0]?.url ?? ''
      expect(alice).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/)

      // As a person runs it from the repository: no port, no address.
      const listed = await docs(root, ['list', '--as', 'Alice'])
      expect([listed.code, listed.stdout]).toEqual([0, expect.stringContaining('Welcome to e2e-col  ·  with Bob')])

      const stopped = line(/^Alice's sidecar is stopped/)
      child.stdin.write('a\n')
      await stopped
      const down = await docs(root, ['list', '--as', 'Alice'])
      expect(down.code).toBe(3)
      expect(down.stderr).toContain(
        `Alice's sidecar (npm start, ${alice}) does not answer: type a and Enter in the terminal running npm start`,
      )
      // Bob's is still there.
      expect((await docs(root, ['list', '--as', 'Bob'])).stdout).toContain('Welcome to e2e-col  ·  with Alice')

      const again = line(/^Alice's sidecar is running again/)
      child.stdin.write('a\n')
      await again
      expect((await docs(root, ['list', '--as', 'alice'])).code).toBe(0)

      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGINT')
      await exited
      expect(existsSync(file)).toBe(false)
    } finally {
      child.kill('SIGKILL')
    }
  }, 120_000)
})
