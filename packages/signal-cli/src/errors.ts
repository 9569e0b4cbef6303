/**
 * Every failure of the daemon client carries a stable string `code`; callers branch on it, never on
 * the message text. The codes keep their `SIDECAR_` prefix: logs and operators already read them.
 */
import { maskNumbersIn } from './redact.ts'

export const SIGNAL_CLI_ERROR_CODES = [
  'SIDECAR_SIGNAL_UNAVAILABLE',
  'SIDECAR_SIGNAL_BAD_RESPONSE',
  'SIDECAR_SIGNAL_RPC_ERROR',
  'SIDECAR_EVENTS_FAILED',
  'SIDECAR_BROADCAST_RECOVERY_REQUIRED',
] as const
export type SignalCliErrorCode = (typeof SIGNAL_CLI_ERROR_CODES)[number]

/** The daemon client's one error base class. */
export class SignalCliError extends Error {
  readonly code: SignalCliErrorCode
  constructor(code: SignalCliErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'SignalCliError'
    this.code = code
  }
}

/**
 * The daemon answered a JSON-RPC error. Only the numeric code and the message are kept: the
 * daemon's `error.data` can hold other people's phone numbers and is never stored or echoed.
 */
export class SignalRpcError extends SignalCliError {
  declare readonly code: 'SIDECAR_SIGNAL_RPC_ERROR'
  readonly rpcCode: number
  /** The daemon's message, phone numbers masked. */
  readonly rpcMessage: string
  /** Pause asked by a rate-limit error (-5), read as one number out of `error.data`. */
  readonly retryAfterSeconds: number | undefined
  /**
   * Every recipient's result in `error.data` was `NETWORK_FAILURE` (read from the result types
   * only): the daemon could not reach Signal, so the message may or may not have gone out.
   */
  readonly networkFailure: boolean
  constructor(
    rpcCode: number,
    message: string,
    retryAfterSeconds?: number,
    options: { networkFailure?: boolean } = {},
  ) {
    const masked = maskNumbersIn(message)
    super('SIDECAR_SIGNAL_RPC_ERROR', `signal-cli error ${rpcCode}: ${masked}`)
    this.name = 'SignalRpcError'
    this.rpcCode = rpcCode
    this.rpcMessage = masked
    this.retryAfterSeconds = retryAfterSeconds
    this.networkFailure = options.networkFailure === true
  }
}

/** The daemon could not be reached or answered HTTP 5xx: the call may or may not have happened. */
export class SignalUnavailableError extends SignalCliError {
  declare readonly code: 'SIDECAR_SIGNAL_UNAVAILABLE'
  constructor(message: string, options?: ErrorOptions) {
    super('SIDECAR_SIGNAL_UNAVAILABLE', message, options)
    this.name = 'SignalUnavailableError'
  }
}

/** The daemon refused the events stream; `status` 400 means it does not serve the account. */
export class SignalEventsRefusedError extends SignalCliError {
  declare readonly code: 'SIDECAR_EVENTS_FAILED'
  readonly status: number
  constructor(status: number, message: string) {
    super('SIDECAR_EVENTS_FAILED', message)
    this.name = 'SignalEventsRefusedError'
    this.status = status
  }
}

/**
 * A backend asserts that transport history is at risk (messages may have been lost for good), so
 * the browsers of the named documents must resend a full snapshot (close code 4409).
 * The HTTP backend never raises it: an events stream that ends is reconnected, not lost history.
 */
export class BroadcastRecoveryRequiredError extends SignalCliError {
  declare readonly code: 'SIDECAR_BROADCAST_RECOVERY_REQUIRED'
  readonly groupIds: readonly string[]
  constructor(groupIds: readonly string[], message: string) {
    super('SIDECAR_BROADCAST_RECOVERY_REQUIRED', message)
    this.name = 'BroadcastRecoveryRequiredError'
    this.groupIds = groupIds
  }
}

/** Each failure of the daemon client, told apart by its `code` (one class per code). */
export type SignalCliFailure =
  | SignalRpcError
  | SignalUnavailableError
  | SignalEventsRefusedError
  | BroadcastRecoveryRequiredError
  | (SignalCliError & { readonly code: 'SIDECAR_SIGNAL_BAD_RESPONSE' })

const CODES: ReadonlySet<unknown> = new Set(SIGNAL_CLI_ERROR_CODES)

/**
 * `err` as a failure of the daemon client, known by its `code`; undefined for anything else. Callers
 * in other packages branch on the code this returns, never on `instanceof` (a second copy of this
 * package in a bundle would not match).
 */
export function asSignalCliFailure(err: unknown): SignalCliFailure | undefined {
  if (typeof err !== 'object' || err === null) return undefined
  return CODES.has((err as { code?: unknown }).code) ? (err as SignalCliFailure) : undefined
}
