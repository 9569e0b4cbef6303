/**
 * Keeps one daemon running: started once (its failure is the caller's), then restarted on the same
 * port with jittered exponential backoff whenever it dies; the backoff resets after a run of
 * `stableMs`. `stop()` ends it for good.
 */
import { nextDelay } from '@e2e-col/signal-cli'
import { startDaemonProcess, type DaemonProcess, type DaemonSpec } from './daemon-process.ts'

/** What the supervisor reports (the caller logs or prints it). */
export type SupervisorEvent =
  | { kind: 'exited'; code: number | string; restartInMs: number }
  | { kind: 'restarted'; attempt: number }
  | { kind: 'restart-failed'; attempt: number; message: string; restartInMs: number }

/** Options of {@link superviseDaemon}. */
export interface SupervisorOptions {
  /** First restart delay (default 1 s); doubles per failed attempt up to `maxDelayMs` (default 60 s). */
  readonly baseDelayMs?: number
  readonly maxDelayMs?: number
  /** A run this long resets the backoff (default 60 s). */
  readonly stableMs?: number
  readonly onEvent?: (event: SupervisorEvent) => void
  /** Starts one process (default {@link startDaemonProcess}); tests pass their own. */
  readonly start?: (spec: DaemonSpec) => Promise<DaemonProcess>
  readonly random?: () => number
}

/** A supervised daemon. */
export interface SupervisedDaemon {
  readonly url: string
  /** Restarts so far. */
  restarts(): number
  stop(): Promise<void>
}

/** Starts the daemon (throws what {@link startDaemonProcess} throws) and supervises it. */
export async function superviseDaemon(spec: DaemonSpec, options: SupervisorOptions = {}): Promise<SupervisedDaemon> {
  const start = options.start ?? startDaemonProcess
  const baseMs = options.baseDelayMs ?? 1_000
  const maxMs = options.maxDelayMs ?? 60_000
  const stableMs = options.stableMs ?? 60_000
  const random = options.random ?? Math.random
  const emit = (event: SupervisorEvent): void => {
    spec.log?.write(`[e2e-col] ${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`)
    options.onEvent?.(event)
  }

  let current: DaemonProcess | undefined = await start(spec)
  let stopped = false
  let restarts = 0
  let attempt = 0
  let timer: NodeJS.Timeout | undefined
  let startedAt = Date.now()
  let restarting: Promise<void> | undefined

  const watch = (proc: DaemonProcess): void => {
    void proc.exited.then((code) => {
      if (stopped || current !== proc) return
      current = undefined
      if (Date.now() - startedAt >= stableMs) attempt = 0
      schedule({ kind: 'exited', code })
    })
  }
  const schedule = (
    why: { kind: 'exited'; code: number | string } | { kind: 'restart-failed'; message: string },
  ): void => {
    const delay = nextDelay(attempt, { baseMs, maxMs }, random)
    emit(why.kind === 'exited' ? { ...why, restartInMs: delay } : { ...why, attempt, restartInMs: delay })
    attempt++
    timer = setTimeout(() => {
      timer = undefined
      restarting = (async () => {
        try {
          const proc = await start(spec)
          if (stopped) {
            await proc.stop()
            return
          }
          current = proc
          startedAt = Date.now()
          restarts++
          emit({ kind: 'restarted', attempt })
          watch(proc)
        } catch (error) {
          if (!stopped)
            schedule({ kind: 'restart-failed', message: error instanceof Error ? error.message : String(error) })
        }
      })()
    }, delay)
  }
  watch(current)

  return {
    url: `http://127.0.0.1:${spec.port}`,
    restarts: () => restarts,
    async stop() {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      await restarting
      await current?.stop()
      current = undefined
    },
  }
}
