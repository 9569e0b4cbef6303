/**
 * Runs one agent turn: spawns the argv in its own process group, drains stdout and stderr together
 * from the start, reports liveness while it runs, and on cancel or timeout kills the whole tree
 * (SIGTERM, SIGKILL after the grace period). Leftover members of the group (tools the agent left
 * running) are terminated when the agent itself exits. Nothing here decides what to post.
 */
import { createOutputCapture } from './output-capture.ts'
import { spawnGroup } from './process-group.ts'

/** How a turn ended. */
export type TurnOutcome = 'ok' | 'failed' | 'cancelled' | 'timeout'

/** The result of one turn; texts are raw (not redacted yet). */
export interface TurnResult {
  outcome: TurnOutcome
  exitCode: number | null
  signal: string | null
  /** Why the agent could not start, when it could not. */
  spawnError?: string
  stdout: string
  /** Stdout bytes beyond the in-memory bound (not in `stdout`). */
  droppedStdoutBytes: number
  /** The file with the whole stdout, when it overflowed the bound and a spill path was given. */
  spilledTo?: string
  /** Stdout bytes kept nowhere (past the spill file's bound, or when it could not be written). */
  unkeptBytes: number
  /** Every byte the agent wrote, stdout and stderr. */
  outputBytes: number
  /** Last bytes of stdout+stderr, for the failure message. */
  tail: string
  durationMs: number
}

/** Progress of a running turn, reported every `livenessMs`. */
export interface TurnLiveness {
  elapsedMs: number
  outputBytes: number
}

/** Options of {@link runTurn}. */
export interface RunTurnOptions {
  argv: readonly string[]
  env: NodeJS.ProcessEnv
  cwd?: string
  /** Aborting cancels the turn (kills the tree). */
  signal?: AbortSignal
  /** Optional wall-clock cap; none by default. */
  timeoutMs?: number | undefined
  /** SIGTERM → SIGKILL grace period. */
  graceMs: number
  /** Stdout kept in memory; beyond it, the whole stdout goes to `spillPath` (if given). */
  maxOutputBytes: number
  spillPath?: string | undefined
  /** Bound of the spill file (default 256 MiB). */
  spillMaxBytes?: number | undefined
  tailBytes: number
  livenessMs?: number
  onLiveness?: (l: TurnLiveness) => void
  /** Called once the process exists, with the process group's id. */
  onStart?: (pid: number | undefined) => void
  /** Called as output arrives, with the bytes written so far (stdout and stderr). */
  onOutput?: (totalBytes: number) => void
}

const STREAM_CLOSE_WAIT_MS = 2000

function streamEnded(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => resolve()
    stream.once('close', done)
    stream.once('end', done)
    stream.once('error', done)
  })
}

/** Runs one turn to completion, cancellation or timeout. Never throws for agent failures. */
export async function runTurn(options: RunTurnOptions): Promise<TurnResult> {
  const started = Date.now()
  const capture = createOutputCapture({
    maxBytes: options.maxOutputBytes,
    tailBytes: options.tailBytes,
    spillPath: options.spillPath,
    spillMaxBytes: options.spillMaxBytes,
  })
  const group = spawnGroup(options.argv, {
    env: options.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  })
  options.onStart?.(group.pid)
  group.stdout.on('data', (c: Buffer) => {
    capture.onStdout(c)
    options.onOutput?.(capture.totalBytes)
  })
  group.stderr.on('data', (c: Buffer) => {
    capture.onStderr(c)
    options.onOutput?.(capture.totalBytes)
  })
  const streamsDone = Promise.all([streamEnded(group.stdout), streamEnded(group.stderr)])

  let stoppedBy: 'cancelled' | 'timeout' | undefined
  let killing: Promise<unknown> | undefined
  const stop = (why: 'cancelled' | 'timeout') => {
    if (stoppedBy !== undefined) return
    stoppedBy = why
    killing = group.terminate(options.graceMs)
  }
  const onAbort = () => stop('cancelled')
  if (options.signal?.aborted) stop('cancelled')
  options.signal?.addEventListener('abort', onAbort, { once: true })
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), options.timeoutMs)
  const liveness =
    options.onLiveness === undefined
      ? undefined
      : setInterval(
          () => options.onLiveness?.({ elapsedMs: Date.now() - started, outputBytes: capture.totalBytes }),
          options.livenessMs ?? 10_000,
        )

  try {
    const exit = await group.exited
    // The agent is gone; anything it left in its group (a backgrounded tool) goes too.
    if (killing === undefined && group.isAlive()) killing = group.terminate(options.graceMs)
    await killing
    // A member that escaped the group (setsid) may still hold the pipes: do not wait on it forever.
    let closeTimer: NodeJS.Timeout | undefined
    await Promise.race([streamsDone, new Promise((r) => (closeTimer = setTimeout(r, STREAM_CLOSE_WAIT_MS)))])
    clearTimeout(closeTimer)
    group.stdout.destroy()
    group.stderr.destroy()
    capture.close()
    const outcome: TurnOutcome = stoppedBy ?? (exit.code === 0 && exit.spawnError === undefined ? 'ok' : 'failed')
    return {
      outcome,
      exitCode: exit.code,
      signal: exit.signal,
      ...(exit.spawnError === undefined ? {} : { spawnError: exit.spawnError }),
      stdout: capture.stdoutText(),
      droppedStdoutBytes: capture.droppedStdoutBytes,
      ...(capture.spilledTo === undefined ? {} : { spilledTo: capture.spilledTo }),
      outputBytes: capture.totalBytes,
      unkeptBytes: capture.unkeptBytes,
      tail: capture.tailText(),
      durationMs: Date.now() - started,
    }
  } finally {
    capture.close()
    if (timer !== undefined) clearTimeout(timer)
    if (liveness !== undefined) clearInterval(liveness)
    options.signal?.removeEventListener('abort', onAbort)
  }
}
