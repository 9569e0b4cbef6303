/**
 * A child process in its own process group (what it starts goes with it), its output into a log
 * with a tail kept in memory for error messages, killed with the parent however the parent ends
 * (SIGKILL included), stopped with SIGTERM then SIGKILL after a grace period. The daemon runs this
 * way; so do the processes `e2e-col up` starts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
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

/**
 * The watcher's script: `read` returns at EOF of its stdin, a pipe whose writing end only this
 * process holds, so the kernel ends it however this process ends. Then the group ($1) gets SIGTERM
 * and, if any of it is left after $2 tenths of a second, SIGKILL.
 */
const WATCH_SCRIPT = `read _
kill -s TERM -- "-$1" 2>/dev/null || exit 0
i=0
while [ "$i" -lt "$2" ] && kill -s 0 -- "-$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -s KILL -- "-$1" 2>/dev/null
exit 0`
/** How long an orphaned group gets to stop on SIGTERM (the sidecar flushes, a JVM exits). */
const ORPHAN_GRACE_MS = 10_000

/**
 * A small `sh` in a session of its own that stops group `pgid` once this process is gone. A
 * process's 'exit' handlers do not run on SIGKILL; the kernel closing its pipes always happens.
 */
function watchForOrphaning(pgid: number, graceMs: number): ChildProcess {
  const watcher = spawn(
    '/bin/sh',
    ['-c', WATCH_SCRIPT, 'e2e-col-orphan-watch', String(pgid), String(Math.ceil(graceMs / 100))],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    },
  )
  watcher.on('error', () => {})
  watcher.stdin?.on('error', () => {})
  // Neither the watcher nor its pipe keeps this process alive.
  watcher.unref()
  ;(watcher.stdin as { unref?: () => void } | null)?.unref?.()
  return watcher
}

/** Starts `command args` as the leader of a new process group. */
export function spawnInGroup(
  command: string,
  args: readonly string[],
  options: {
    readonly env: NodeJS.ProcessEnv
    readonly log?: RotatingLog | undefined
    readonly onLine?: ((line: string) => void) | undefined
    /** How long the group gets between SIGTERM and SIGKILL once this process is gone (10 s). */
    readonly orphanGraceMs?: number | undefined
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
  // A dying parent must not leave its children running (a JVM would keep holding its folder's lock):
  // an exit it sees kills the group at once; one it cannot see (SIGKILL) is the watcher's.
  const watcher = pid === undefined ? undefined : watchForOrphaning(pid, options.orphanGraceMs ?? ORPHAN_GRACE_MS)
  const endWatcher = (): void => void watcher?.kill('SIGKILL')
  const onExit = (): void => {
    kill('SIGKILL')
    endWatcher()
  }
  process.once('exit', onExit)
  let gone = false
  const exited = new Promise<GroupExit>((resolve) => {
    child.once('error', (error) => {
      tail += `\n${error.message}`
      gone = true
      endWatcher()
      resolve({ code: null, signal: null, spawnError: error })
    })
    child.once('exit', (code, signal) => {
      gone = true
      process.removeListener('exit', onExit)
      endWatcher()
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
