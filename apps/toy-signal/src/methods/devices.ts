/**
 * `listDevices` (`ListDevicesCommand`): the account's devices as Signal's server lists them. The toy
 * has one device per account (id 1, unnamed, as a primary device is); without network the real
 * -3 `Failed to get linked devices: …` (measured on 0.13.19 offline).
 * @see docs/daemon-contract.md §7
 */
import { RpcFailure, RPC_CODES } from '../rpc-failure.ts'
import type { MethodDefinition } from './context.ts'

export const listDevicesMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    if (ctx.faults.networkLost())
      throw new RpcFailure(RPC_CODES.ioError, 'Failed to get linked devices: Closed unexpectedly')
    const now = ctx.state.now()
    return [{ id: 1, name: null, createdTimestamp: now, lastSeenTimestamp: now }]
  },
}
