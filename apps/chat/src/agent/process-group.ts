/**
 * One child process in its own process group, owned by one handle. Signals go to the whole group
 * (the agent and every tool it spawned), never to a bare PID. The group id stays reserved while any
 * member lives; once a probe finds the group empty the handle stops signalling for good, so a
 * recycled PID is never hit.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import type { Readable } from 'node:stream'

/** How the leader process ended. */
export interface LeaderExit {
  code: number | null
  signal: NodeJS.Signals | null
  /** Set when the process could not be started (e.g. ENOENT). */
  spawnError?: string
}

/** A running process group. */
export interface ProcessGroup {
  readonly pid: number | undefined
  readonly stdout: Readable
  readonly stderr: Readable
  /** Resolves when the leader has exited (or failed to start). */
  readonly exited: Promise<LeaderExit>
  /** True while some member of the group may still be running. */
  isAlive(): boolean
  /**
   * SIGTERM to the group, SIGKILL after `graceMs` if anything is left, then waits (bounded) for the
   * group to empty. Resolves to the signal that was last needed, or `undefined` if it was already gone.
   */
  terminate(graceMs: number): Promise<'SIGTERM' | 'SIGKILL' | undefined>
}

const POLL_MS = 40

/** Groups that may still run; killed if this process exits while they do (no orphaned turns). */
const live = new Set<number>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const pgid of live) {
      try {
        process.kill(-pgid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  })
}
const AFTER_KILL_WAIT_MS = 2000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Whether any member of group `pgid` is still running (not a zombie waiting for its reaper). Reads
 * /proc on Linux; elsewhere it cannot tell and answers true, leaving the `kill(-pgid, 0)` probe in
 * charge. Zombies matter in containers whose init reaps slowly: they hold the group id but run nothing.
 */
function hasRunningMember(pgid: number): boolean {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return true
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1')
    } catch {
      continue
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true
  }
  return false
}

/** Spawns `argv` (never through a shell) as the leader of a new process group, stdin closed. */
export function spawnGroup(argv: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): ProcessGroup {
  const [file, ...args] = argv
  if (file === undefined || file === '') throw new RangeError('argv must name a program')
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(file, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    shell: false,
    windowsHide: true,
  })
  const pgid = child.pid
  let groupGone = pgid === undefined
  if (pgid !== undefined) {
    live.add(pgid)
    installExitHook()
  }
  const exited = new Promise<LeaderExit>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        groupGone = true
        resolve({ code: null, signal: null, spawnError: err.code ?? 'spawn failed' })
      }
    })
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })

  /** Sends `sig` (0 = probe) to the group; false once the group is known to be empty. */
  function signalGroup(sig: NodeJS.Signals | 0): boolean {
    if (groupGone || pgid === undefined) return false
    try {
      process.kill(-pgid, sig)
      return true
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') {
        groupGone = true
        live.delete(pgid)
        return false
      }
      throw err
    }
  }

  /** True while a member runs; once none does (zombies included), the group is never signalled again. */
  function running(): boolean {
    if (signalGroup(0) && pgid !== undefined && hasRunningMember(pgid)) return true
    groupGone = true
    if (pgid !== undefined) live.delete(pgid)
    return false
  }

  async function waitGone(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms
    for (;;) {
      if (!running()) return true
      if (Date.now() >= deadline) return false
      await sleep(POLL_MS)
    }
  }

  return {
    pid: pgid,
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    isAlive: running,
    async terminate(graceMs) {
      if (!signalGroup('SIGTERM')) return undefined
      if (await waitGone(graceMs)) return 'SIGTERM'
      signalGroup('SIGKILL')
      await waitGone(AFTER_KILL_WAIT_MS)
      return 'SIGKILL'
    },
  }
}
