/**
 * Whether Signal can be reached, for the whole sidecar: one state shared by every document's send
 * queue, so a sidecar that lost its network probes once at a time, not once per document.
 *
 * A failed send is classified (classifySendFailure) as `network` (the daemon answered but could not
 * reach Signal's servers: -32603 "Failed to send message: … IOException", -3 IO_ERROR, a whole-request
 * 429, an all-failed send whose every result is NETWORK_FAILURE), `daemon-down` (no answer, HTTP 5xx or garbage from the daemon), `rate-limited` (-5) or
 * `rejected` (any other JSON-RPC error: definite, retrying cannot help). The first two are
 * transient: after `attempts` consecutive ones Signal counts as away (one `warn` line), and from then
 * on one queue at a time may try (the probe), at a backoff growing to `probeMaxMs`; the first
 * success brings it back (one `info` line) and lets every queue go.
 * @see docs/sidecar.md §4.4
 */
import { SignalCliError, SignalRpcError, SignalUnavailableError, nextDelay } from '@e2e-col/signal-cli'
import type { SignalState } from '@e2e-col/protocol'
import { isUnlinked } from '../ops/linked-device.ts'
import type { Logger } from '../ops/logger.ts'

export type SendFailure = 'network' | 'daemon-down' | 'rate-limited' | 'rejected'

// JSON-RPC codes of a daemon that is up but cannot reach Signal: internal error (IOException) and IO error.
const NETWORK_RPC_CODES = new Set([-32603, -3])

export function classifySendFailure(error: unknown): SendFailure {
  // A device Signal removed: nothing is refused, every change waits until it is linked again.
  if (isUnlinked(error)) return 'network'
  if (error instanceof SignalRpcError) {
    // An all-failed send whose every result is NETWORK_FAILURE: what signal-cli 0.13.19 answers offline.
    if (error.networkFailure) return 'network'
    if (error.rpcCode === -5) return 'rate-limited'
    return NETWORK_RPC_CODES.has(error.rpcCode) ? 'network' : 'rejected'
  }
  if (error instanceof SignalUnavailableError) return 'daemon-down'
  if (error instanceof SignalCliError && error.code === 'SIDECAR_SIGNAL_BAD_RESPONSE') return 'daemon-down'
  return 'rejected'
}

/** What a send queue reads and reports. `SignalState` minus `refused`, which is per document. */
export type Reach = Exclude<SignalState, 'refused'>

export interface Reachability {
  readonly state: Reach
  /** When the current state began (ms), null while reachable. */
  readonly since: number | null
  /** Consecutive transient failures before Signal counts as away. */
  readonly attempts: number
  /** A send went through. */
  succeeded(): void
  /**
   * A send failed transiently (`network` or `daemon-down`) after its own retries, or a probe
   * (`probe`: the caller held the turn, which it gives up) failed.
   */
  failed(kind: 'network' | 'daemon-down', probe: boolean): void
  /** A probe ended otherwise (rejected, rate limited, queue closed): its holder gives up the turn. */
  settled(): void
  /**
   * Resolves when the caller may send: at once while reachable; while away, when this caller holds
   * the one probe turn (after the backoff) or Signal came back. False when `signal` aborted.
   */
  turn(signal: AbortSignal): Promise<boolean>
  /** Called on every change of state. */
  onChange(listener: (state: Reach) => void): () => void
}

export interface ReachabilityOptions {
  attempts: number
  probeBaseMs: number
  probeMaxMs: number
  now: () => number
  sleep: (ms: number, signal: AbortSignal) => Promise<void>
  rng: () => number
  logger: Logger
}

export function createReachability(o: ReachabilityOptions): Reachability {
  let state: Reach = 'reachable'
  let since: number | null = null
  let probeFailures = 0
  let prober = false
  const wake: (() => void)[] = []
  const listeners = new Set<(state: Reach) => void>()

  const set = (next: Reach): void => {
    if (next === state) return
    const was = state
    state = next
    since = next === 'reachable' ? null : o.now()
    if (next === 'reachable') {
      o.logger.info({ was, probes: probeFailures + 1 }, 'Signal is reachable again; sending what was kept')
      probeFailures = 0
    } else if (was === 'reachable') {
      o.logger.warn(
        { state: next },
        next === 'unreachable'
          ? 'Signal is unreachable (no network?); changes are kept and sent when it returns'
          : 'signal-cli does not answer; changes are kept and sent when it returns',
      )
    } else {
      o.logger.info({ state: next, was }, 'Signal is still away, for another reason')
    }
    for (const l of listeners) l(next)
  }
  const release = (): void => {
    prober = false
    for (const w of wake.splice(0)) w()
  }

  return {
    get state() {
      return state
    },
    get since() {
      return since
    },
    attempts: o.attempts,
    succeeded() {
      set('reachable')
      release()
    },
    failed(kind, probe) {
      if (probe) probeFailures += 1
      set(kind === 'network' ? 'unreachable' : 'daemon-down')
      if (probe) release()
    },
    settled: release,
    async turn(signal) {
      for (;;) {
        if (signal.aborted) return false
        if (state === 'reachable') return true
        if (!prober) {
          prober = true
          await o.sleep(nextDelay(probeFailures, { baseMs: o.probeBaseMs, maxMs: o.probeMaxMs }, o.rng), signal)
          if (signal.aborted) {
            release()
            return false
          }
          return true
        }
        await new Promise<void>((resolve) => {
          wake.push(resolve)
          signal.addEventListener('abort', () => resolve(), { once: true })
        })
      }
    },
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
