/**
 * Methods about the daemon and who is on Signal: `version`, `listAccounts`, `getUserStatus`.
 * @see reference `signal-cli-wire.md` §4.6–4.8
 */
import { RpcFailure } from '../rpc-failure.ts'
import type { MethodDefinition } from './context.ts'
import { listParam } from './params.ts'

/** The version the toy reports: signal-cli's 0.14.x line, marked so nobody mistakes it for a real daemon. */
export const TOY_VERSION = '0.14.6-toy'

/** `version`: `{version}`; works with or without an account. */
export const versionMethod: MethodDefinition = { routing: 'dual', run: () => ({ version: TOY_VERSION }) }

/** `listAccounts`: `[{number}]`; multi-account mode only. */
export const listAccountsMethod: MethodDefinition = {
  routing: 'multi',
  run: (ctx) => ctx.state.accounts.map((number) => ({ number })),
}

/** `getUserStatus`: one entry per recipient; `uuid` always present (null when unregistered). */
export const getUserStatusMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    // Registration is asked of Signal's servers: without network, IOErrorException (-3).
    if (ctx.faults.networkLost())
      throw new RpcFailure(
        -3,
        'Unable to check if users are registered: Unable to resolve host: chat.signal.org (IOException)',
      )
    return listParam(ctx.params, 'recipient', 'recipients').map((recipient) => {
      const registered = ctx.state.isRegistered(recipient)
      return {
        recipient,
        number: recipient,
        uuid: registered ? ctx.state.uuidOf(recipient) : null,
        isRegistered: registered,
      }
    })
  },
}
