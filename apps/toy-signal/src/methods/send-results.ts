/**
 * The `{timestamp, results}` result of signal-cli's send-like commands
 * (`SendMessageResultUtils`), and its "no recipient succeeded" rule.
 * @see reference `signal-cli-wire.md` §4.1
 */
import { RPC_CODES, RpcFailure } from '../rpc-failure.ts'
import type { ToySignalState } from '../state.ts'

/** `type` values of one send result. */
export type SendResultType =
  | 'SUCCESS'
  | 'UNREGISTERED_FAILURE'
  | 'RATE_LIMIT_FAILURE'
  | 'IDENTITY_FAILURE'
  | 'NETWORK_FAILURE'

/** One entry of `results`. `groupId` only for group sends; token/retryAfterSeconds only when rate-limited. */
export interface SendResultEntry {
  recipientAddress: { uuid: string; number: string; username: null }
  groupId?: string
  type: SendResultType
  token?: string
  retryAfterSeconds?: number
}

/** Builds one entry for a recipient. */
export function resultEntry(
  state: ToySignalState,
  number: string,
  type: SendResultType,
  extra: { groupId?: string | undefined; retryAfterSeconds?: number | undefined; token?: false },
): SendResultEntry {
  const entry: SendResultEntry = { recipientAddress: { uuid: state.uuidOf(number), number, username: null }, type }
  if (extra.groupId !== undefined) entry.groupId = extra.groupId
  if (type === 'RATE_LIMIT_FAILURE') {
    // A proof-required limit carries a challenge token; a plain 429 (Signal's pace) only Retry-After.
    if (extra.token !== false) entry.token = state.randomUuid()
    if (extra.retryAfterSeconds !== undefined) entry.retryAfterSeconds = extra.retryAfterSeconds
  }
  return entry
}

/**
 * Returns the result, or throws the all-failed error carrying it in `data.response`: -4 when all
 * failures are identity failures, -5 when all are rate limits, -1 otherwise. An empty `results`
 * (sole group member) counts as success.
 */
export function settleSend(
  timestamp: number,
  results: SendResultEntry[],
): { timestamp: number; results: SendResultEntry[] } {
  const response = { timestamp, results }
  if (results.length === 0 || results.some((r) => r.type === 'SUCCESS')) return response
  if (results.every((r) => r.type === 'IDENTITY_FAILURE')) {
    throw new RpcFailure(RPC_CODES.untrustedKey, 'Failed to send message due to untrusted identities', { response })
  }
  if (results.every((r) => r.type === 'RATE_LIMIT_FAILURE')) {
    throw new RpcFailure(RPC_CODES.rateLimit, 'Failed to send message due to rate limiting', { response })
  }
  throw new RpcFailure(RPC_CODES.userError, 'Failed to send message', { response })
}
