/**
 * The run state every part reads: `ready` while browsers are admitted, `stopped` once nothing more
 * may be stored or sent, the store failure that stops the sidecar (once), and the one shutdown.
 * A store failure before the sidecar is up only marks it stopped: the start then fails with it.
 */
import type { CloserStack } from '../closers.ts'
import { codeOf, messageOf } from '../error-code.ts'
import { StoreError } from '../errors.ts'
import type { Logger } from '../ops/logger.ts'

export type ShutdownReason = 'requested' | 'store-failed' | 'start-failed'

export interface Lifecycle {
  ready(): boolean
  stopped(): boolean
  /** The store failure that stopped (or stops) the sidecar. */
  failure(): StoreError | undefined
  /** Why the sidecar is shutting down (read by the shutdown's log line). */
  reason(): ShutdownReason
  /** Browsers are admitted from now on. */
  markReady(): void
  /** Browsers are no longer admitted (the shutdown's first step). */
  closing(): void
  /** Nothing more is stored or sent. */
  halt(): void
  /** The store failed: stop the sidecar (once). */
  fatal(error: unknown): void
  /** Runs a step that touches the store; a store failure stops the sidecar (undefined then). */
  storing<T>(fn: () => T): T | undefined
  /** Shuts down once; every caller waits for the same run. */
  stop(): Promise<void>
  /** The start failed: unwinds what was opened, with reason `start-failed`. */
  failStart(): Promise<void>
}

export interface LifecycleOptions {
  readonly closers: CloserStack
  readonly storePath: string
  readonly logger: Logger
  /** Called once the sidecar has stopped itself because its store failed. */
  readonly onFatal?: ((error: StoreError) => void) | undefined
}

const isStoreError = (error: unknown): error is StoreError => codeOf(error) === 'SIDECAR_STORE_FAILED'

export function createLifecycle(o: LifecycleOptions): Lifecycle {
  let ready = false
  let stopped = false
  let failure: StoreError | undefined
  let stopping: Promise<void> | undefined
  let reason: ShutdownReason = 'requested'

  function stop(): Promise<void> {
    if (stopping === undefined) reason = failure === undefined ? 'requested' : 'store-failed'
    return (stopping ??= o.closers.unwind())
  }
  function fatal(error: unknown): void {
    if (failure !== undefined) return
    failure = isStoreError(error)
      ? error
      : new StoreError(o.storePath, `unexpected failure (${messageOf(error)})`, {
          cause: error,
        })
    o.logger.fatal({ err: failure, store: o.storePath }, 'replica store failed; stopping the sidecar')
    const err = failure
    // Before the sidecar is up, the start itself fails with this error.
    if (!ready && stopping === undefined) return void (stopped = true)
    void stop().then(() => o.onFatal?.(err))
  }
  return {
    ready: () => ready,
    stopped: () => stopped,
    failure: () => failure,
    reason: () => reason,
    markReady: () => void (ready = true),
    closing: () => void (ready = false),
    halt: () => void (stopped = true),
    fatal,
    storing(fn) {
      if (stopped) return undefined
      try {
        return fn()
      } catch (error) {
        fatal(error)
        return undefined
      }
    },
    stop,
    failStart() {
      reason = 'start-failed'
      return (stopping ??= o.closers.unwind())
    },
  }
}
