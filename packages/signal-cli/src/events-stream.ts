/**
 * Keeps the daemon's events stream open: reads the already opened first stream, and whenever a
 * stream ends or fails, reconnects after a jittered exponential backoff (reset after each
 * successful open). An ended stream is not lost history: the daemon keeps undelivered messages
 * for the next listener. Only a backend's explicit BroadcastRecoveryRequiredError says otherwise.
 */
import { asSignalCliFailure, type BroadcastRecoveryRequiredError } from './errors.ts'
import type { SignalBackend, SignalEvent, SignalEventStream } from './backend.ts'
import { nextDelay, type BackoffPolicy } from './backoff.ts'

export interface EventsLoopOptions {
  backend: SignalBackend
  policy: BackoffPolicy
  rng: () => number
  sleep: (ms: number, signal: AbortSignal) => Promise<void>
  onEvent: (event: SignalEvent) => void
  onRecoveryRequired: (error: BroadcastRecoveryRequiredError) => void
  /** Called before each reconnect attempt (the sidecar counts them). */
  onReconnect: () => void
  logger: EventsLogger
}

/** The two log calls the loop makes (a pino logger fits). */
export interface EventsLogger {
  info(message: string): void
  warn(fields: object, message: string): void
  warn(message: string): void
}

export interface EventsLoop {
  /** True while a stream is open. */
  readonly up: boolean
  stop(): Promise<void>
}

/** Runs the loop from an already opened stream (opening it is part of startup). */
export function runEventsLoop(first: SignalEventStream, firstAbort: AbortController, o: EventsLoopOptions): EventsLoop {
  const stopped = new AbortController()
  let up = true
  let current = { stream: first, abort: firstAbort }

  async function read(stream: SignalEventStream): Promise<void> {
    try {
      for await (const event of stream) o.onEvent(event)
      o.logger.warn('events stream ended; reconnecting')
    } catch (error) {
      // A backend of another package may raise it: known by its code.
      const failure = asSignalCliFailure(error)
      if (failure?.code === 'SIDECAR_BROADCAST_RECOVERY_REQUIRED') o.onRecoveryRequired(failure)
      else if (!stopped.signal.aborted) o.logger.warn({ err: error }, 'events stream failed; reconnecting')
    }
  }

  async function loop(): Promise<void> {
    let attempt = 0
    for (;;) {
      await read(current.stream)
      up = false
      while (!stopped.signal.aborted) {
        await o.sleep(nextDelay(attempt++, o.policy, o.rng), stopped.signal)
        if (stopped.signal.aborted) return
        o.onReconnect()
        const abort = new AbortController()
        try {
          current = { stream: await o.backend.openEvents(abort.signal), abort }
          up = true
          attempt = 0
          o.logger.info('events stream reconnected')
          break
        } catch (error) {
          o.logger.warn({ err: error, attempt }, 'events stream reconnect failed')
        }
      }
      if (stopped.signal.aborted) return
    }
  }

  const done = loop()
  return {
    get up() {
      return up
    },
    async stop() {
      stopped.abort()
      current.abort.abort()
      current.stream.close()
      await done
    },
  }
}
