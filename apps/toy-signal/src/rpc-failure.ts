/**
 * signal-cli's JSON-RPC error codes (`JsonRpcResponse.Error` and `SignalJsonRpcCommandHandler`).
 * @see docs/daemon-contract.md §2
 */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  userError: -1,
  ioError: -3,
  untrustedKey: -4,
  rateLimit: -5,
} as const

/** A command failure that the dispatcher turns into a JSON-RPC `error` object. */
export class RpcFailure extends Error {
  readonly code = 'TOY_RPC_FAILURE'
  readonly rpcCode: number
  /** `null` unless the command wrote a result before failing (`{response: …}` for all-failed sends). */
  readonly data: { response: unknown } | null
  constructor(rpcCode: number, message: string, data: { response: unknown } | null = null) {
    super(message)
    this.name = 'RpcFailure'
    this.rpcCode = rpcCode
    this.data = data
  }
}

/** `err` as a command failure, known by its `code`. */
export function isRpcFailure(err: unknown): err is RpcFailure {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'TOY_RPC_FAILURE'
}

/** `-1` USER_ERROR, the code signal-cli uses for bad input and unknown groups. */
export function userError(message: string): RpcFailure {
  return new RpcFailure(RPC_CODES.userError, message)
}

/** `-32603` as signal-cli formats an unexpected Java exception: `<message> (<SimpleClassName>)`. */
export function internalError(message: string, javaClass: string): RpcFailure {
  return new RpcFailure(RPC_CODES.internalError, `${message} (${javaClass})`)
}
