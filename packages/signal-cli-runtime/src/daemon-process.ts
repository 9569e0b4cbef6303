/**
 * One signal-cli daemon process: `signal-cli --config DIR daemon --http 127.0.0.1:PORT
 * --receive-mode on-connection` (or another receive mode), in its own process group (the launcher script starts the JVM as a
 * child and both must go), its output into a log, ready once `GET /api/v1/check` answers 200.
 */
import { createServer } from 'node:net'
import { RuntimeError } from './errors.ts'
import { spawnInGroup } from './process-group.ts'
import type { RotatingLog } from './rotating-log.ts'

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

/** How to start one daemon. */
export interface DaemonSpec {
  /** The signal-cli launcher. */
  readonly launcher: string
  readonly javaHome: string
  /** signal-cli's `--config` folder (its accounts and keys). */
  readonly configDir: string
  readonly port: number
  /** Where the daemon's stdout and stderr go; a short tail is kept in memory for errors either way. */
  readonly log?: RotatingLog
  /** Deadline for `/api/v1/check` to answer 200 (default 90 s: a cold JVM on a busy machine). */
  readonly readyTimeoutMs?: number
  /** Extra arguments placed before `daemon` (e.g. `--verbose`). */
  readonly globalArgs?: readonly string[]
  /**
   * When the daemon receives from Signal. Default `on-connection`: only while a client holds the
   * events stream, so nothing is taken off the server that no one will read. `on-start` is
   * signal-cli's own default (the contract suite runs the daemon as it comes).
   */
  readonly receiveMode?: 'on-connection' | 'on-start'
}

/** A started daemon. */
export interface DaemonProcess {
  readonly url: string
  readonly pid: number | undefined
  /** Resolves with the exit code (or signal name) when the process ends, for whatever reason. */
  readonly exited: Promise<number | string>
  /** SIGTERM to the group, SIGKILL after `graceMs` (default 5 s); resolves once it is gone. */
  stop(graceMs?: number): Promise<void>
}

const LOCKED = /Config file is in use by another instance/
const PORT_TAKEN = /Address already in use|BindException/

/**
 * Starts the daemon and waits for `/api/v1/check`.
 * @throws RuntimeError `DAEMON_PORT_TAKEN`, `DAEMON_CONFIG_LOCKED`, `DAEMON_EXITED`, `DAEMON_START_TIMEOUT`
 */
export async function startDaemonProcess(spec: DaemonSpec): Promise<DaemonProcess> {
  const url = `http://127.0.0.1:${spec.port}`
  const args = [
    ...(spec.globalArgs ?? []),
    '--config',
    spec.configDir,
    'daemon',
    '--http',
    `127.0.0.1:${spec.port}`,
    '--receive-mode',
    spec.receiveMode ?? 'on-connection',
  ]
  const group = spawnInGroup(spec.launcher, args, { env: { ...process.env, JAVA_HOME: spec.javaHome }, log: spec.log })
  const { pid } = group
  // The JVM may outlive the launcher script; make sure the whole group is gone.
  const exited: Promise<number | string> = group.exited.then(({ code, signal, spawnError }) => {
    group.kill('SIGKILL')
    return spawnError !== undefined ? 'spawn-error' : (code ?? signal ?? 'unknown')
  })
  const stop = (graceMs = 5_000): Promise<void> => group.stop(graceMs)

  const timeoutMs = spec.readyTimeoutMs ?? 90_000
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (group.gone) {
      const code = await exited
      if (PORT_TAKEN.test(group.output()))
        throw new RuntimeError(
          'DAEMON_PORT_TAKEN',
          `signal-cli could not listen on 127.0.0.1:${spec.port}: the port is taken by another program`,
        )
      throw new RuntimeError(
        'DAEMON_EXITED',
        `signal-cli exited (${code}) before it answered; its last output: ${lastLines(group.output())}`,
      )
    }
    if (LOCKED.test(group.output())) {
      await stop()
      throw new RuntimeError(
        'DAEMON_CONFIG_LOCKED',
        `signal-cli's folder ${spec.configDir} is locked by another signal-cli (a daemon or command still running on it)`,
      )
    }
    try {
      const res = await fetch(`${url}/api/v1/check`, { signal: AbortSignal.timeout(2_000) })
      await res.body?.cancel()
      if (res.status === 200) return { url, pid, exited, stop }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  await stop()
  throw new RuntimeError(
    'DAEMON_START_TIMEOUT',
    `signal-cli did not answer ${url}/api/v1/check within ${Math.round(timeoutMs / 1000)} s; its last output: ${lastLines(group.output())}`,
  )
}

function lastLines(text: string): string {
  const lines = text.trim().split('\n').slice(-5).join(' | ')
  return lines === '' ? '(none)' : lines
}
