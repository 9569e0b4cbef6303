/**
 * Methods about the daemon and who is on Signal: `version`, `listAccounts`, `getUserStatus`.
 * @see reference `signal-cli-wire.md` §4.6–4.8
 */
import type { MethodDefinition } from './context.ts'
import { listParam } from './params.ts'
import { failStatusIfUnreachable } from './unreachable.ts'

/** `version`: `{version}` of the version the toy plays; works with or without an account. */
export const versionMethod: MethodDefinition = { routing: 'dual', run: (ctx) => ({ version: ctx.state.version.text }) }

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
    failStatusIfUnreachable(ctx)
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
