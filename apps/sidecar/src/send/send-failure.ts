/**
 * What a failed send means, read from the daemon client's error by its stable `code` and fields
 * (never `instanceof`: a second copy of the client package would not match):
 * `network` (the daemon answered but could not reach Signal's servers: -32603 "Failed to send
 * message: … IOException", -3 IO_ERROR, an all-failed send whose every result is NETWORK_FAILURE),
 * `daemon-down` (no answer, HTTP 5xx or garbage from the daemon), `rate-limited` (-5) or `rejected`
 * (any other JSON-RPC error, or anything else: definite, retrying cannot help).
 * @see docs/sidecar.md §4.4, daemon-contract.md §6.7
 */
import { isUnlinked } from '../ops/linked-device.ts'

export type SendFailure = 'network' | 'daemon-down' | 'rate-limited' | 'rejected'

/** What the daemon said in a JSON-RPC error (`SIDECAR_SIGNAL_RPC_ERROR`). */
export interface RpcFacts {
  readonly rpcCode: number
  /** Pause asked by a rate-limit error (-5), when it named one. */
  readonly retryAfterSeconds: number | undefined
  /** Every recipient's result was NETWORK_FAILURE. */
  readonly networkFailure: boolean
}

// JSON-RPC codes of a daemon that is up but cannot reach Signal: internal error (IOException) and IO error.
const NETWORK_RPC_CODES = new Set([-32603, -3])

const codeOf = (error: unknown): unknown =>
  typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined

/** The daemon's JSON-RPC error facts, or undefined for any other failure. */
export function rpcFacts(error: unknown): RpcFacts | undefined {
  if (codeOf(error) !== 'SIDECAR_SIGNAL_RPC_ERROR') return undefined
  const e = error as { rpcCode?: unknown; retryAfterSeconds?: unknown; networkFailure?: unknown }
  if (typeof e.rpcCode !== 'number') return undefined
  return {
    rpcCode: e.rpcCode,
    retryAfterSeconds: typeof e.retryAfterSeconds === 'number' ? e.retryAfterSeconds : undefined,
    networkFailure: e.networkFailure === true,
  }
}

export function classifySendFailure(error: unknown): SendFailure {
  // A device Signal removed: nothing is refused, every change waits until it is linked again.
  if (isUnlinked(error)) return 'network'
  const rpc = rpcFacts(error)
  if (rpc !== undefined) {
    // An all-failed send whose every result is NETWORK_FAILURE: what signal-cli 0.13.19 answers offline.
    if (rpc.networkFailure) return 'network'
    if (rpc.rpcCode === -5) return 'rate-limited'
    return NETWORK_RPC_CODES.has(rpc.rpcCode) ? 'network' : 'rejected'
  }
  const code = codeOf(error)
  if (code === 'SIDECAR_SIGNAL_UNAVAILABLE' || code === 'SIDECAR_SIGNAL_BAD_RESPONSE') return 'daemon-down'
  return 'rejected'
}
