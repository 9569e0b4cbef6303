/**
 * Fault switches for reliability tests. Each switch is a counter consumed by the request path; the
 * same switches back the in-process API and the `/toy/v1/` admin route.
 * @see docs/daemon-contract.md §6.6
 */
import { ToySignalError } from './errors.ts'

/** How a rate-limited send fails: one recipient (partial success) or every recipient (-5). */
export type RateLimitMode = 'per-recipient' | 'all-failed'

/** How an identity-failed send fails: one recipient (partial success) or every recipient (-4). */
export type IdentityFailMode = RateLimitMode

/** A whole-request JSON-RPC error, as a real daemon reports a server 413/429 (-32603). */
export interface FaultRpcError {
  code: number
  message: string
}

/**
 * How an events request misbehaves: `status` alone answers that status with an empty body (default
 * 500); `contentType` answers 200 (or `status`) with that content type and an empty body, so a
 * client that checks for `text/event-stream` sees the wrong stream.
 */
export interface EventsFailure {
  status?: number
  contentType?: string
}

/** What happens to a spoiled attachment on its way to a receiver: bytes changed, or never stored. */
export type AttachmentSpoil = 'corrupt' | 'lose'

/** Longest message accepted by `failNextSendsWith`: a bound on what the toy stores. */
export const MAX_FAULT_MESSAGE_CHARS = 1000

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
  /**
   * The next `n` sends report `IDENTITY_FAILURE` (untrusted safety number) for one recipient or,
   * by default, for all of them (-4 with `data.response`). Nothing is delivered to failed recipients.
   */
  identityFailNextSends(n: number, options?: { mode?: IdentityFailMode; from?: string }): void
  /**
   * The next `n` sends answer this JSON-RPC error (data null) and deliver nothing; with `from`, only
   * that account's sends count (another account's sends go through untouched).
   */
  failNextSendsWith(n: number, error: FaultRpcError, options?: { from?: string }): void
  /** The next `n` events requests answer a failure instead of a stream (default HTTP 500, empty body). */
  failEvents(n: number, options?: EventsFailure): void
  /**
   * The next `n` attachments kept for a receiving account are spoiled: one byte flipped
   * (`corrupt`), or not kept at all (`lose`: `getAttachment` then answers -1 not found).
   */
  spoilNextAttachments(n: number, options: { mode: AttachmentSpoil }): void
  /**
   * The next `n` group sends by an account that is not a member of the group are delivered to its
   * members instead of refused: a daemon bug real signal-cli should never have, for testing that
   * receivers check membership themselves.
   */
  admitNonMemberSends(n: number): void
  /**
   * Until switched off, the daemon has no network (a laptop on a train): every send answers -32603
   * `Failed to send message: … (IOException) (UnexpectedErrorException)` and `getUserStatus` -3,
   * delivering nothing; the events stream stays up, as signal-cli's does.
   */
  setNetworkLoss(lost: boolean): void
  reset(): void
}

/** What the request path reads from the switches. */
export interface FaultState {
  takeRpcFailure(): boolean
  takeSendDrop(): boolean
  delayMs(): number
  takeDuplicate(): boolean
  takeRateLimit(): { retryAfterSeconds: number; mode: RateLimitMode } | undefined
  takeIdentityFailure(account: string): IdentityFailMode | undefined
  takeSendError(account: string): FaultRpcError | undefined
  networkLost(): boolean
  /** The failure for this events request, with its status resolved, or undefined to stream. */
  takeEventsFailure(): { status: number; contentType?: string } | undefined
  takeAttachmentSpoil(): AttachmentSpoil | undefined
  takeNonMemberSend(): boolean
}

function take(value: number): [boolean, number] {
  return value > 0 ? [true, value - 1] : [false, 0]
}

/** Creates the switches; when disabled every switch throws `TOY_FAULTS_DISABLED` and nothing fires. */
export function createFaults(
  enabled: boolean,
  cutStreams: (afterEvents?: number) => void,
): { switches: FaultSwitches; state: FaultState } {
  let rpcFailures = 0
  let sendDrops = 0
  let delay = 0
  let duplicates = 0
  let rateLimits = 0
  let rateLimit: { retryAfterSeconds: number; mode: RateLimitMode } = { retryAfterSeconds: 0, mode: 'all-failed' }
  let identityFailures = 0
  let identityMode: IdentityFailMode = 'all-failed'
  // Only sends by this account meet the identity fault (any account's when undefined).
  let identityFrom: string | undefined
  let sendErrors = 0
  let sendError: FaultRpcError = { code: -32603, message: '' }
  let sendErrorFrom: string | undefined
  let eventsFailures = 0
  let nonMemberSends = 0
  let networkLost = false
  let eventsFailure: { status: number; contentType?: string } = { status: 500 }
  let spoils = 0
  let spoil: AttachmentSpoil = 'corrupt'

  const guard = (): void => {
    if (!enabled)
      throw new ToySignalError('TOY_FAULTS_DISABLED', 'fault switches are off: start the toy with faults enabled')
  }
  const count = (n: number): number => {
    guard()
    if (!Number.isSafeInteger(n) || n < 0)
      throw new ToySignalError('TOY_CONFIG_INVALID', `fault count must be a non-negative integer, got ${n}`)
    return n
  }

  const switches: FaultSwitches = {
    failNextRpc: (n) => {
      rpcFailures = count(n)
    },
    dropNextSends: (n) => {
      sendDrops = count(n)
    },
    setDelay: (ms) => {
      delay = count(ms)
    },
    cutStreams: (options) => {
      guard()
      cutStreams(options?.afterEvents === undefined ? undefined : count(options.afterEvents))
    },
    duplicateNextEvents: (n) => {
      duplicates = count(n)
    },
    rateLimitNextSends: (n, options) => {
      rateLimits = count(n)
      rateLimit = { retryAfterSeconds: count(options.retryAfterSeconds), mode: options.mode }
    },
    identityFailNextSends: (n, options) => {
      identityFailures = count(n)
      identityMode = options?.mode ?? 'all-failed'
      identityFrom = options?.from
    },
    failNextSendsWith: (n, error, options) => {
      const checked = count(n)
      if (!Number.isSafeInteger(error.code))
        throw new ToySignalError('TOY_CONFIG_INVALID', 'error code must be an integer')
      if (error.message.length > MAX_FAULT_MESSAGE_CHARS) {
        throw new ToySignalError(
          'TOY_CONFIG_INVALID',
          `error message must be at most ${MAX_FAULT_MESSAGE_CHARS} characters`,
        )
      }
      sendErrors = checked
      sendError = { code: error.code, message: error.message }
      sendErrorFrom = options?.from
    },
    failEvents: (n, options) => {
      const checked = count(n)
      const status = options?.status ?? (options?.contentType === undefined ? 500 : 200)
      if (!Number.isSafeInteger(status) || status < 200 || status > 599) {
        throw new ToySignalError('TOY_CONFIG_INVALID', `events failure status must be 200-599, got ${status}`)
      }
      if (options?.contentType !== undefined && !/^[\x21-\x7e][\x20-\x7e]{0,199}$/.test(options.contentType)) {
        throw new ToySignalError(
          'TOY_CONFIG_INVALID',
          'events failure content type must be 1-200 printable ASCII characters',
        )
      }
      eventsFailures = checked
      eventsFailure = options?.contentType === undefined ? { status } : { status, contentType: options.contentType }
    },
    spoilNextAttachments: (n, options) => {
      spoils = count(n)
      if (options.mode !== 'corrupt' && options.mode !== 'lose')
        throw new ToySignalError('TOY_CONFIG_INVALID', 'spoil mode must be corrupt or lose')
      spoil = options.mode
    },
    admitNonMemberSends: (n) => {
      nonMemberSends = count(n)
    },
    setNetworkLoss: (lost) => {
      guard()
      networkLost = lost
    },
    reset: () => {
      guard()
      networkLost = false
      spoils = 0
      nonMemberSends = 0
      identityFailures = 0
      identityFrom = undefined
      sendErrors = 0
      sendErrorFrom = undefined
      eventsFailures = 0
      rpcFailures = 0
      sendDrops = 0
      delay = 0
      duplicates = 0
      rateLimits = 0
    },
  }
  const state: FaultState = {
    takeRpcFailure: () => {
      const [hit, rest] = take(rpcFailures)
      rpcFailures = rest
      return hit
    },
    takeSendDrop: () => {
      const [hit, rest] = take(sendDrops)
      sendDrops = rest
      return hit
    },
    delayMs: () => delay,
    takeDuplicate: () => {
      const [hit, rest] = take(duplicates)
      duplicates = rest
      return hit
    },
    takeRateLimit: () => {
      const [hit, rest] = take(rateLimits)
      rateLimits = rest
      return hit ? rateLimit : undefined
    },
    takeIdentityFailure: (account) => {
      if (identityFrom !== undefined && account !== identityFrom) return undefined
      const [hit, rest] = take(identityFailures)
      identityFailures = rest
      return hit ? identityMode : undefined
    },
    networkLost: () => networkLost,
    takeSendError: (account) => {
      if (sendErrorFrom !== undefined && account !== sendErrorFrom) return undefined
      const [hit, rest] = take(sendErrors)
      sendErrors = rest
      return hit ? sendError : undefined
    },
    takeNonMemberSend: () => {
      const [hit, rest] = take(nonMemberSends)
      nonMemberSends = rest
      return hit
    },
    takeAttachmentSpoil: () => {
      const [hit, rest] = take(spoils)
      spoils = rest
      return hit ? spoil : undefined
    },
    takeEventsFailure: () => {
      const [hit, rest] = take(eventsFailures)
      eventsFailures = rest
      return hit ? eventsFailure : undefined
    },
  }
  return { switches, state }
}
