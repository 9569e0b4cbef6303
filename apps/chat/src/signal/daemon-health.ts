/**
 * Counts consecutive failures to reach the daemon, shared by the events stream and every rpc, and
 * decides when the retry budget is spent. Any success resets the count.
 */
import { asChatError, ChatError } from '../errors.ts'
import { backoffDelay, pause } from '../backoff.ts'

export interface DaemonHealth {
  /**
   * Runs `fn`, retrying with backoff while the daemon is unreachable (`CHAT_DAEMON_UNAVAILABLE`).
   * Throws `CHAT_DAEMON_LOST` once the budget is spent; other errors pass through at once.
   */
  call<T>(what: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T>
  /** Records one failed attempt; returns the delay to wait, or throws `CHAT_DAEMON_LOST`. */
  failed(what: string): number
  succeeded(): void
  readonly consecutiveFailures: number
}

export function createDaemonHealth(options: {
  budget: number
  baseMs: number
  maxMs: number
  onRetry?: (what: string, attempt: number, delayMs: number) => void
}): DaemonHealth {
  let failures = 0
  const health: DaemonHealth = {
    failed(what) {
      failures++
      if (failures > options.budget) {
        throw new ChatError(
          'CHAT_DAEMON_LOST',
          `signal-cli daemon not restored after ${options.budget} attempts (last: ${what})`,
        )
      }
      const delay = backoffDelay(failures - 1, { baseMs: options.baseMs, maxMs: options.maxMs })
      options.onRetry?.(what, failures, delay)
      return delay
    },
    succeeded() {
      failures = 0
    },
    async call(what, fn, signal) {
      for (;;) {
        try {
          const value = await fn()
          health.succeeded()
          return value
        } catch (err) {
          if (asChatError(err)?.code !== 'CHAT_DAEMON_UNAVAILABLE' || signal?.aborted) throw err
          await pause(health.failed(what), signal)
          if (signal?.aborted) throw err
        }
      }
    },
    get consecutiveFailures() {
      return failures
    },
  }
  return health
}
