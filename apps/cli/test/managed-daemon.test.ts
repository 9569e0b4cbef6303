/**
 * The daemon e2e-col starts itself, end to end but without a JVM: a stand-in launcher
 * (SIGNAL_CLI_PATH) runs the toy daemon on the address setup and up choose, and a stand-in JDK
 * (JAVA_HOME) reports Java 21. Setup prints the versions, makes signal-cli's folder 0700 and links;
 * up supervises the daemon (a killed daemon comes back on the same port) and Ctrl-C stops it too.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { javaInstallHint, readOsRelease } from '@e2e-col/signal-cli-runtime'
import { eventually, runCli } from './cli-process.ts'

const LAUNCHER = fileURLToPath(new URL('./fake-signal-cli-toy.mjs', import.meta.url))
const LINKED = '+15555550151'
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function fakeJdk(root: string): string {
  const home = join(root, 'jdk-21')
  mkdirSync(join(home, 'bin'), { recursive: true })
  writeFileSync(join(home, 'bin', 'java'), `#!/bin/sh\necho 'openjdk version "21.0.4" 2024-07-16' >&2\n`)
  chmodSync(join(home, 'bin', 'java'), 0o755)
  return home
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/api/v1/check`)).status === 200
  } catch {
    return false
  }
}

function pids(pattern: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((p) => p !== '')
  } catch {
    return []
  }
}

describe('the daemon e2e-col manages', () => {
  it('is started by setup and supervised by up, restarted on the same port when killed, and stopped by Ctrl-C', async () => {
    const root = mkdtempSync(join(tmpdir(), 'e2e-col-managed-'))
    dirs.push(root)
    const state = join(root, 'state')
    const env = { JAVA_HOME: fakeJdk(root), SIGNAL_CLI_PATH: LAUNCHER }

    const setup = runCli(['setup', '--link', '--state-dir', state, '--no-page'], env)
    const daemonUrl = (await setup.waitFor(/answers at (http:\/\/127\.0\.0\.1:\d+)/, 'the daemon'))[1] as string
    expect(setup.output()).toContain(`Using Java 21 (${env.JAVA_HOME})`)
    expect(setup.output()).toContain(`Using signal-cli 0.13.19-fake (PATH: ${LAUNCHER})`)
    const uri = await eventually(
      'a device link',
      async () =>
        ((await (await fetch(`${daemonUrl}/toy/v1/provisioning/links`)).json()) as { deviceLinkUri: string }[])[0]
          ?.deviceLinkUri,
    )
    await fetch(`${daemonUrl}/toy/v1/provisioning/scan`, {
      method: 'POST',
      body: JSON.stringify({ deviceLinkUri: uri, number: LINKED }),
    })
    expect(await setup.exited).toBe(0)
    // Setup's daemon went with it; its folder is private and its log kept.
    expect(await answers(daemonUrl)).toBe(false)
    expect(statSync(join(state, 'signal-cli')).mode & 0o777).toBe(0o700)
    expect(readFileSync(join(state, 'daemon.log'), 'utf8')).toContain('toy-signal listening on')

    // What a real signal-cli would have kept in its folder: the linked account (setup made no group).
    writeFileSync(join(state, 'signal-cli', 'toy.json'), JSON.stringify({ accounts: [LINKED], faults: true }))

    // A setup run again (its config lost) uses the account the daemon holds instead of linking anew.
    rmSync(join(state, 'config.json'))
    const again = runCli(['setup', '--link', '--state-dir', state, '--no-page'], env)
    expect(await again.exited).toBe(0)
    expect(again.output()).toContain(`This computer already holds ${LINKED} in ${join(state, 'signal-cli')}; using it.`)
    expect(again.output()).not.toContain('Waiting for the scan')
    expect(JSON.parse(readFileSync(join(state, 'config.json'), 'utf8'))).toMatchObject({ SIGNAL_CLI_ACCOUNT: LINKED })

    const up = runCli(['up', '--no-open', '--state-dir', state, '--page-port', '0', '--listen', '127.0.0.1:0'], env)
    await up.waitFor(/e2e-col is up for/, 'up to be ready')
    const port = (/Starting the signal-cli daemon on 127\.0\.0\.1:(\d+)/.exec(up.output()) ?? [])[1] as string
    const upDaemon = `http://127.0.0.1:${port}`
    expect(await answers(upDaemon)).toBe(true)
    // The daemon dies: the supervisor brings it back on the same port.
    for (const pid of pids(`toy-signal.js --http 127.0.0.1:${port}`)) process.kill(Number(pid), 'SIGKILL')
    await up.waitFor(/signal-cli daemon restarted/, 'the restart')
    expect(up.output()).toMatch(/signal-cli daemon stopped \((?:\d+|SIGKILL)\); restarting in \d+ s/)
    await eventually('the restarted daemon to answer', async () => ((await answers(upDaemon)) ? true : undefined))

    up.child.kill('SIGINT')
    expect(await up.exited).toBe(0)
    expect(await answers(upDaemon)).toBe(false)
    // The groups it stopped were SIGKILLed last; a busy kernel takes a moment to end them.
    await expect.poll(() => pids(join(state, 'signal-cli')), { timeout: 10_000, interval: 50 }).toEqual([])
  }, 180_000)

  it('says which Java to install when there is none (exit 3), and names a folder another signal-cli holds (exit 5)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'e2e-col-managed-'))
    dirs.push(root)
    const noJava = runCli(['setup', '--link', '--state-dir', join(root, 'a'), '--no-page'], {
      JAVA_HOME: '',
      PATH: join(root, 'empty-bin'),
      E2E_COL_JVM_DIRS: join(root, 'none'),
    })
    expect(await noJava.exited).toBe(3)
    expect(noJava.output()).toContain('signal-cli needs Java 21+, none found')
    // The advice is the one for this machine's own system (os-release), whatever that is.
    expect(noJava.output()).toContain(`what to do: ${javaInstallHint(process.platform, readOsRelease())}`)

    const state = join(root, 'b')
    const locked = runCli(['setup', '--link', '--state-dir', state, '--no-page'], {
      JAVA_HOME: fakeJdk(root),
      SIGNAL_CLI_PATH: LAUNCHER,
      FAKE_SIGNAL_CLI: 'locked',
    })
    expect(await locked.exited).toBe(5)
    expect(locked.output()).toContain(
      `signal-cli's folder ${join(state, 'signal-cli')} is locked by another signal-cli`,
    )
    expect(locked.output()).toContain('an `e2e-col up` still running?')
    // Setup's exit SIGKILLs the daemon's group; a busy kernel takes a moment to end it.
    await expect.poll(() => pids(join(state, 'signal-cli')), { timeout: 10_000, interval: 50 }).toEqual([])
  }, 120_000)
})
