/**
 * Runs parsed JSON-RPC calls like `SignalJsonRpcCommandHandler`: method lookup (-32601), params
 * mapping (-32600), account routing (-32602), then the command, whose failures become -1…-5 or
 * -32603. Notifications run but their answers are dropped.
 * @see docs/daemon-contract.md §2, reference `signal-cli-wire.md` §3 and §5
 */
import { errorResponse, isObject, paramsAsObject, type RpcCall, type RpcResponse } from './jsonrpc.ts'
import { listContactsMethod } from './methods/contacts.ts'
import type { MethodContext, MethodDefinition } from './methods/context.ts'
import { listIdentitiesMethod, updateContactMethod, updateProfileMethod } from './methods/identities.ts'
import { getAttachmentMethod } from './methods/get-attachment.ts'
import { listDevicesMethod } from './methods/devices.ts'
import { getUserStatusMethod, listAccountsMethod, versionMethod } from './methods/directory.ts'
import { listGroupsMethod, quitGroupMethod, updateGroupMethod } from './methods/groups.ts'
import { announce } from './methods/group-admin.ts'
import { joinGroupMethod } from './methods/group-links.ts'
import { terminateGroupMethod } from './methods/group-terminate.ts'
import { sendAdminDeleteMethod } from './methods/admin-delete.ts'
import { sendMessageRequestResponseMethod, sendReactionMethod } from './methods/message-requests.ts'
import { finishLinkMethod, registerMethod, startLinkMethod, verifyMethod } from './methods/provisioning.ts'
import { sendMethod } from './methods/send.ts'
import { sendTypingMethod } from './methods/typing.ts'
import { takeCallFailure } from './method-faults.ts'
import { isRpcFailure, RPC_CODES } from './rpc-failure.ts'
import { UNIMPLEMENTED_ACCOUNT_COMMANDS, UNIMPLEMENTED_REGISTRATION_COMMANDS } from './signal-cli-commands.ts'

/** Every method the toy implements; anything else is -32601 `Method not implemented`. */
export const METHODS: ReadonlyMap<string, MethodDefinition> = new Map([
  ['send', sendMethod],
  ['listGroups', listGroupsMethod],
  ['updateGroup', updateGroupMethod],
  ['quitGroup', quitGroupMethod],
  ['terminateGroup', terminateGroupMethod],
  ['sendAdminDelete', sendAdminDeleteMethod],
  ['joinGroup', joinGroupMethod(announce)],
  ['sendMessageRequestResponse', sendMessageRequestResponseMethod],
  ['sendReaction', sendReactionMethod],
  ['sendTyping', sendTypingMethod],
  ['listAccounts', listAccountsMethod],
  ['version', versionMethod],
  ['getUserStatus', getUserStatusMethod],
  ['listContacts', listContactsMethod],
  ['listIdentities', listIdentitiesMethod],
  ['updateContact', updateContactMethod],
  ['updateProfile', updateProfileMethod],
  ['getAttachment', getAttachmentMethod],
  ['listDevices', listDevicesMethod],
  ['startLink', startLinkMethod],
  ['finishLink', finishLinkMethod],
  ['register', registerMethod],
  ['verify', verifyMethod],
])

/** Runs one call. Returns `undefined` for a notification. */
export async function dispatch(
  call: RpcCall,
  base: Omit<MethodContext, 'account' | 'params'>,
): Promise<RpcResponse | undefined> {
  const answer = (response: RpcResponse): RpcResponse | undefined => (call.id === undefined ? undefined : response)
  const id = call.id ?? null
  const fail = (code: number, message: string): RpcResponse | undefined => answer(errorResponse(code, message, id))
  const known = METHODS.get(call.method)
  // A method newer than the release played is unknown to it, as to the real daemon.
  const method = known?.since === undefined || base.state.version.atLeast(known.since) ? known : undefined
  if (method === undefined) {
    const routed = base.state.mode === 'multi' ? routeUnimplemented(call, base.state) : undefined
    return fail(routed?.code ?? RPC_CODES.methodNotFound, routed?.message ?? 'Method not implemented')
  }
  if ((method.routing === 'multi' || method.routing === 'registration') && base.state.mode === 'single')
    return fail(RPC_CODES.methodNotFound, 'Method not implemented')
  // The account is routed before the params are mapped (`getManagerFromParams` reads it from an
  // object only): positional params name no account, so a per-account method is -32602 first.
  const named = isObject(call.params) ? call.params : {}
  let account = base.state.accounts[0] ?? ''
  if (method.routing === 'registration') {
    // Any account reaches the command, even one that does not exist yet; none is -32602.
    const requested = named['account']
    if (typeof requested !== 'string') return fail(RPC_CODES.invalidParams, 'Method requires valid account parameter')
    account = requested
  } else if (base.state.mode === 'multi' && method.routing !== 'multi') {
    const requested = named['account']
    if (requested !== undefined) {
      if (typeof requested !== 'string' || !base.state.isAccount(requested)) {
        return fail(RPC_CODES.invalidParams, 'Specified account does not exist')
      }
      account = requested
    } else if (method.routing === 'account' && base.state.accounts.length !== 1) {
      return fail(RPC_CODES.invalidParams, 'Method requires valid account parameter')
    }
  }
  const mapped = paramsAsObject(call.params)
  if (!mapped.ok) return fail(RPC_CODES.invalidRequest, mapped.message)
  const params = mapped.value
  if (method.routing !== 'multi' && (method.routing === 'registration' || base.state.mode === 'multi'))
    delete params['account']
  const injected = takeCallFailure(base.state, call.method)
  if (injected !== undefined) return fail(injected.code, injected.message)
  try {
    const result = await method.run({ ...base, account, params })
    return answer({ jsonrpc: '2.0', result, id })
  } catch (error) {
    if (isRpcFailure(error)) return answer(errorResponse(error.rpcCode, error.message, id, error.data))
    const message = error instanceof Error ? error.message : String(error)
    return answer(errorResponse(RPC_CODES.internalError, `${message} (RuntimeException)`, id))
  }
}

/**
 * A real signal-cli command the toy lacks, in multi-account mode: the account error a real daemon
 * gives first, or undefined when the account would have been accepted (then -32601).
 */
function routeUnimplemented(
  call: RpcCall,
  state: MethodContext['state'],
): { code: number; message: string } | undefined {
  const registration = UNIMPLEMENTED_REGISTRATION_COMMANDS.has(call.method)
  if (!registration && !UNIMPLEMENTED_ACCOUNT_COMMANDS.has(call.method)) return undefined
  const mapped = paramsAsObject(call.params)
  const requested = mapped.ok ? mapped.value['account'] : undefined
  if (requested === undefined) {
    if (registration || state.accounts.length !== 1)
      return { code: RPC_CODES.invalidParams, message: 'Method requires valid account parameter' }
    return undefined
  }
  if (registration) return undefined
  if (typeof requested !== 'string' || !state.isAccount(requested))
    return { code: RPC_CODES.invalidParams, message: 'Specified account does not exist' }
  return undefined
}
