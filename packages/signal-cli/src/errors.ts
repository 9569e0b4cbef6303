/**
 * Every failure of the daemon client carries a stable string `code`; callers branch on it, never on
 * the message text. The codes keep their `SIDECAR_` prefix: logs and operators already read them.
 */
import { maskNumbersIn } from './redact.ts'

export type SignalCliErrorCode =
  | 'SIDECAR_SIGNAL_UNAVAILABLE'
  | 'SIDECAR_SIGNAL_BAD_RESPONSE'
  | 'SIDECAR_SIGNAL_RPC_ERROR'
  | 'SIDECAR_EVENTS_FAILED'
  | 'SIDECAR_BROADCAST_RECOVERY_REQUIRED'

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
  constructor(message: string, options?: ErrorOptions) {
    super('SIDECAR_SIGNAL_UNAVAILABLE', message, options)
    this.name = 'SignalUnavailableError'
  }
}

/** The daemon refused the events stream; `status` 400 means it does not serve the account. */
export class SignalEventsRefusedError extends SignalCliError {
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
  readonly groupIds: readonly string[]
  constructor(groupIds: readonly string[], message: string) {
    super('SIDECAR_BROADCAST_RECOVERY_REQUIRED', message)
    this.name = 'BroadcastRecoveryRequiredError'
    this.groupIds = groupIds
  }
}
