/**
 * JSON-RPC 2.0 over signal-cli's `POST /api/v1/rpc`: request building and strict response checks.
 * A response is accepted only if it says `jsonrpc: "2.0"` and echoes our id (an error may carry
 * `id: null`, which the daemon uses when it could not read the request). Errors keep their numeric
 * code and message only; `error.data` is never surfaced.
 * @see docs/daemon-contract.md §2 (the daemon surface) and signal-cli-jsonrpc(5)
 */
import { z } from 'zod'
import { SignalCliError, SignalRpcError } from './errors.ts'

/**
 * What the account knows of someone's identity key (`listIdentities` `trustLevel`):
 * `verified` (TRUSTED_VERIFIED: the safety number was compared), `unverified`
 * (TRUSTED_UNVERIFIED: trusted on first use), `changed` (UNTRUSTED: the key changed since it was
 * first trusted, or was marked unverified).
 */
export type SafetyState = 'verified' | 'unverified' | 'changed'

/** JSON-RPC id the sidecar sends: unique per backend. */
export type RpcId = number

const RpcError = z.object({ code: z.number().int(), message: z.string() })
const RpcResponse = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.number(), z.string(), z.null()]),
  result: z.unknown().optional(),
  error: RpcError.optional(),
})

/** `send` result: a non-negative integer timestamp plus per-recipient outcomes. */
export const SendResult = z.object({
  timestamp: z.number().int().nonnegative(),
  results: z
    .array(z.object({ type: z.string(), retryAfterSeconds: z.number().nonnegative().optional().nullable() }).loose())
    .optional(),
})
export type SendResult = z.infer<typeof SendResult>

/** `getAttachment` result: the file as standard base64. */
export const AttachmentData = z.object({ data: z.string() }).loose()

const Member = z.union([
  z.string(),
  z.object({ number: z.string().nullable().optional(), uuid: z.string().nullable().optional() }).loose(),
])

/** One group as `listGroups` reports it (only the fields the sidecar and the chat loop read). */
export const GroupListing = z.array(
  z
    .object({
      id: z.string(),
      name: z.string().nullable().optional(),
      description: z.string().nullable().optional(),
      isMember: z.boolean().optional(),
      isBlocked: z.boolean().optional(),
      /** An admin ended the group for everyone (signal-cli 0.14.8+; absent before). */
      isTerminated: z.boolean().optional(),
      messageExpirationTime: z.number().optional(),
      members: z.array(Member).optional(),
      pendingMembers: z.array(Member).optional(),
      requestingMembers: z.array(Member).optional(),
      admins: z.array(Member).optional(),
      /** `EVERY_MEMBER` or `ONLY_ADMINS`: who may add members, and who may edit the name and details. */
      permissionAddMember: z.string().optional(),
      permissionEditDetails: z.string().optional(),
    })
    .loose(),
)
export type GroupListing = z.infer<typeof GroupListing>

/** `updateGroup` result when it created a group. */
export const CreatedGroup = z.object({ groupId: z.string().min(1) }).loose()
/** Results the caller does not read (reactions, message-request responses, leaving a group). */
export const IgnoredResult = z.unknown()

/** `listContacts` (only the fields the sidecar reads; hidden numbers are null). */
export const ContactList = z.array(
  z
    .object({
      number: z.string().nullable().optional(),
      name: z.string().nullable().optional(),
      givenName: z.string().nullable().optional(),
      familyName: z.string().nullable().optional(),
      nickName: z.string().nullable().optional(),
      nickGivenName: z.string().nullable().optional(),
      nickFamilyName: z.string().nullable().optional(),
      profile: z
        .object({ givenName: z.string().nullable().optional(), familyName: z.string().nullable().optional() })
        .loose()
        .nullable()
        .optional(),
    })
    .loose(),
)

/** `listIdentities` (only the fields the sidecar reads; an unknown trust level is read as changed). */
export const IdentityList = z.array(
  z.object({ number: z.string().nullable().optional(), trustLevel: z.string().nullable().optional() }).loose(),
)

/**
 * signal-cli's TrustLevel as the sidecar shows it. UNTRUSTED is what a key that replaced a trusted
 * one gets (IdentityKeyStore.saveNewIdentity with trust-on-first-use); anything unknown is treated
 * the same way, since a warning is the safe side.
 */
export function safetyOf(trustLevel: string | null | undefined): SafetyState {
  if (trustLevel === 'TRUSTED_VERIFIED') return 'verified'
  if (trustLevel === 'TRUSTED_UNVERIFIED') return 'unverified'
  return 'changed'
}

export const VersionResult = z.object({ version: z.string() }).loose()
export const AccountList = z.array(z.object({ number: z.string() }).loose())

/** The JSON text of one request. */
export function encodeRequest(id: RpcId, method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params === undefined ? { jsonrpc: '2.0', method, id } : { jsonrpc: '2.0', method, params, id })
}

// -5 (all recipients rate limited) carries the pause in data.response.results[].retryAfterSeconds;
// only that number is read, the rest of `data` (other people's numbers) is dropped here.
const RateLimitData = z
  .object({
    response: z
      .object({
        results: z.array(z.object({ retryAfterSeconds: z.number().nonnegative().optional().nullable() }).loose()),
      })
      .loose(),
  })
  .loose()

function retryAfterFrom(data: unknown): number | undefined {
  const r = RateLimitData.safeParse(data)
  if (!r.success) return undefined
  const values = r.data.response.results
    .map((x) => x.retryAfterSeconds)
    .filter((v): v is number => typeof v === 'number')
  return values.length === 0 ? undefined : Math.max(...values)
}

// An all-failed send (-1 "Failed to send message") writes its result into data.response first;
// when every result is NETWORK_FAILURE the daemon could not reach Signal (a real 0.13.19 without
// network answers a direct send so). Only the `type`s are read.
const FailedSendData = z
  .object({
    response: z.object({ results: z.array(z.object({ type: z.string() }).loose()).min(1) }).loose(),
  })
  .loose()

function allNetworkFailures(data: unknown): boolean {
  const r = FailedSendData.safeParse(data)
  return r.success && r.data.response.results.every((x) => x.type === 'NETWORK_FAILURE')
}

/**
 * Checks one HTTP response body against the request id and the expected result schema.
 * @throws SignalRpcError for a JSON-RPC error; SignalCliError `SIDECAR_SIGNAL_BAD_RESPONSE` for
 *   anything that is not a well-formed answer to this request.
 */
export function parseResponse<T>(text: string, id: RpcId, result: z.ZodType<T>): T {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new SignalCliError('SIDECAR_SIGNAL_BAD_RESPONSE', 'signal-cli answered with invalid JSON')
  }
  const r = RpcResponse.safeParse(json)
  if (!r.success)
    throw new SignalCliError(
      'SIDECAR_SIGNAL_BAD_RESPONSE',
      'signal-cli answered with something that is not a JSON-RPC 2.0 response',
    )
  const res = r.data
  if (res.error !== undefined) {
    if (res.id !== null && res.id !== id)
      throw new SignalCliError('SIDECAR_SIGNAL_BAD_RESPONSE', 'signal-cli answered an error for another request id')
    const data = (json as { error?: { data?: unknown } }).error?.data
    throw new SignalRpcError(
      res.error.code,
      res.error.message,
      res.error.code === -5 ? retryAfterFrom(data) : undefined,
      { networkFailure: allNetworkFailures(data) },
    )
  }
  if (res.id !== id)
    throw new SignalCliError('SIDECAR_SIGNAL_BAD_RESPONSE', 'signal-cli answered for another request id')
  const ok = result.safeParse(res.result)
  if (!ok.success)
    throw new SignalCliError(
      'SIDECAR_SIGNAL_BAD_RESPONSE',
      `signal-cli result has an unexpected shape: ${z.prettifyError(ok.error).split('\n')[0] ?? ''}`,
    )
  return ok.data
}
