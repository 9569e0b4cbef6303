/**
 * What a daemon that cannot reach Signal answers (the `setNetworkLoss` switch), worded as the real
 * 0.13.19 words it offline: its websocket is down, so a message send reports the socket closing
 * and an attachment upload (which comes first) finds no connection.
 * @see docs/daemon-contract.md §6.8
 */
import { internalError, RpcFailure, RPC_CODES } from '../rpc-failure.ts'
import type { MethodContext } from './context.ts'

/** The IOException a send meets offline. */
const SOCKET_CLOSED = 'java.net.SocketException: Closed unexpectedly (IOException)'
/** The IOException an upload (or a group change) meets offline. */
const NO_CONNECTION = 'No connection! (IOException)'

/** -32603 `Failed to send message: …` when Signal is unreachable: `upload` for attachments and group changes. */
export function failIfUnreachable(ctx: MethodContext, step: 'message' | 'upload'): void {
  if (!ctx.faults.networkLost()) return
  throw internalError(
    `Failed to send message: ${step === 'upload' ? NO_CONNECTION : SOCKET_CLOSED}`,
    'UnexpectedErrorException',
  )
}

/** `sendTyping`'s wording of the same failure: -1, without the UnexpectedErrorException wrapper. */
export function failTypingIfUnreachable(ctx: MethodContext): void {
  if (ctx.faults.networkLost()) throw new RpcFailure(RPC_CODES.userError, `Failed to send message: ${SOCKET_CLOSED}`)
}

/** `getUserStatus` offline: -3, the socket exception's own class named. */
export function failStatusIfUnreachable(ctx: MethodContext): void {
  if (ctx.faults.networkLost())
    throw new RpcFailure(
      RPC_CODES.ioError,
      'Unable to check if users are registered: Closed unexpectedly (SocketException)',
    )
}
