/**
 * Fault switches for reliability tests. Each switch is a counter consumed by the request path; the
 * same switches back the in-process API and the `/toy/v1/` admin route.
 * @see docs/contract.md §6.6
 */
import { ToySignalError } from './errors.ts'

/** How a rate-limited send fails: one recipient (partial success) or every recipient (-5). */
export type RateLimitMode = 'per-recipient' | 'all-failed'

/** The public switches, as `ToySignal.faults` exposes them. */
export interface FaultSwitches {
  /** The next `n` rpc calls get HTTP 500 with an empty body before any processing. */
  failNextRpc(n: number): void
  /** The next `n` sends are processed (delivered, logged) and then the socket is destroyed unanswered. */
  dropNextSends(n: number): void
  /** Delays every rpc answer by `ms` (0 turns it off). */
  setDelay(ms: number): void
  /** Cuts every events stream now, or each one after `afterEvents` more events. */
  cutStreams(options?: { afterEvents?: number }): void
  /** Writes each of the next `n` events twice. */
  duplicateNextEvents(n: number): void
  /** The next `n` sends report `RATE_LIMIT_FAILURE` for one recipient or for all (-5). */
  rateLimitNextSends(n: number, options: { retryAfterSeconds: number; mode: RateLimitMode }): void
  reset(): void
}

/** What the request path reads from the switches. */
export interface FaultState {
  takeRpcFailure(): boolean
  takeSendDrop(): boolean
  delayMs(): number
  takeDuplicate(): boolean
  takeRateLimit(): { retryAfterSeconds: number; mode: RateLimitMode } | undefined
}

function take(value: number): [boolean, number] {
  return value > 0 ? [true, value - 1] : [false, 0]
}

/** Creates the switches; when disabled every switch throws `TOY_FAULTS_DISABLED` and nothing fires. */
export function createFaults(enabled: boolean, cutStreams: (afterEvents?: number) => void): { switches: FaultSwitches; state: FaultState } {
  let rpcFailures = 0
  let sendDrops = 0
  let delay = 0
  let duplicates = 0
  let rateLimits = 0
  let rateLimit: { retryAfterSeconds: number; mode: RateLimitMode } = { retryAfterSeconds: 0, mode: 'all-failed' }

  const guard = (): void => {
    if (!enabled) throw new ToySignalError('TOY_FAULTS_DISABLED', 'fault switches are off: start the toy with faults enabled')
  }
  const count = (n: number): number => {
    guard()
    if (!Number.isSafeInteger(n) || n < 0) throw new ToySignalError('TOY_CONFIG_INVALID', `fault count must be a non-negative integer, got ${n}`)
    return n
  }

  const switches: FaultSwitches = {
    failNextRpc: (n) => { rpcFailures = count(n) },
    dropNextSends: (n) => { sendDrops = count(n) },
    setDelay: (ms) => { delay = count(ms) },
    cutStreams: (options) => {
      guard()
      cutStreams(options?.afterEvents === undefined ? undefined : count(options.afterEvents))
    },
    duplicateNextEvents: (n) => { duplicates = count(n) },
    rateLimitNextSends: (n, options) => {
      rateLimits = count(n)
      rateLimit = { retryAfterSeconds: count(options.retryAfterSeconds), mode: options.mode }
    },
    reset: () => {
      guard()
      rpcFailures = 0
      sendDrops = 0
      delay = 0
      duplicates = 0
      rateLimits = 0
    },
  }
  const state: FaultState = {
    takeRpcFailure: () => { const [hit, rest] = take(rpcFailures); rpcFailures = rest; return hit },
    takeSendDrop: () => { const [hit, rest] = take(sendDrops); sendDrops = rest; return hit },
    delayMs: () => delay,
    takeDuplicate: () => { const [hit, rest] = take(duplicates); duplicates = rest; return hit },
    takeRateLimit: () => { const [hit, rest] = take(rateLimits); rateLimits = rest; return hit ? rateLimit : undefined },
  }
  return { switches, state }
}
