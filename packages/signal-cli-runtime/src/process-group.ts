/**
 * A child process in its own process group (what it starts goes with it), its output into a log
 * with a tail kept in memory for error messages, killed with the parent, stopped with SIGTERM then
 * SIGKILL after a grace period. The daemon runs this way; so do the processes `e2e-col up` starts.
 */
import { spawn } from 'node:child_process'
import type { RotatingLog } from './rotating-log.ts'

/** How a group's leader ended: its exit code or signal, or the error that kept it from starting. */
export interface GroupExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly spawnError?: Error
}

export interface GroupChild {
  readonly pid: number | undefined
  /** Resolves when the leader exits or fails to start. */
  readonly exited: Promise<GroupExit>
  /** True once `exited` has resolved. */
  readonly gone: boolean
  /** The last 4,000 characters it printed (stdout and stderr), and a spawn error's message. */
  output(): string
  /** Sends `signal` to the whole group (a group already gone is left alone). */
  kill(signal: NodeJS.Signals): void
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the leader is gone and the group killed. */
  stop(graceMs: number): Promise<void>
}

const TAIL_CHARS = 4000

/** Starts `command args` as the leader of a new process group. */
export function spawnInGroup(
  command: string,
  args: readonly string[],
  options: {
    readonly env: NodeJS.ProcessEnv
    readonly log?: RotatingLog | undefined
    readonly onLine?: ((line: string) => void) | undefined
  },
): GroupChild {
  const child = spawn(command, args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let tail = ''
  let partial = ''
  const take = (chunk: Buffer): void => {
    const text = chunk.toString()
    options.log?.write(text)
    tail = (tail + text).slice(-TAIL_CHARS)
    if (options.onLine === undefined) return
    partial += text
    for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
      options.onLine(partial.slice(0, nl))
      partial = partial.slice(nl + 1)
    }
  }
  child.stdout.on('data', take)
  child.stderr.on('data', take)
  const pid = child.pid
  const kill = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return
    try {
      process.kill(-pid, signal)
    } catch {
      // already gone
    }
  }
  // A dying parent must not leave its children running (a JVM would keep holding its folder's lock).
  const onExit = (): void => kill('SIGKILL')
  process.once('exit', onExit)
  let gone = false
  const exited = new Promise<GroupExit>((resolve) => {
    child.once('error', (error) => {
      tail += `\n${error.message}`
      gone = true
      resolve({ code: null, signal: null, spawnError: error })
    })
    child.once('exit', (code, signal) => {
      gone = true
      process.removeListener('exit', onExit)
      resolve({ code, signal })
    })
  })
  return {
    pid,
    exited,
    get gone() {
      return gone
    },
    output: () => tail,
    kill,
    async stop(graceMs) {
      if (gone) return
      kill('SIGTERM')
      const force = setTimeout(() => kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(force)
      kill('SIGKILL')
    },
  }
}
