/**
 * Methods about the daemon and who is on Signal: `version`, `listAccounts`, `getUserStatus`.
 * @see reference `signal-cli-wire.md` §4.6–4.8
 */
import type { MethodDefinition } from './context.ts'
import { listParam } from './params.ts'
import { formatNumber } from './targets.ts'
import { failStatusIfUnreachable } from './unreachable.ts'

/** `version`: `{version}` of the version the toy plays; works with or without an account. */
export const versionMethod: MethodDefinition = { routing: 'dual', run: (ctx) => ({ version: ctx.state.version.text }) }

/** `listAccounts`: `[{number}]`; multi-account mode only. */
export const listAccountsMethod: MethodDefinition = {
  routing: 'multi',
  run: (ctx) => ctx.state.accounts.map((number) => ({ number })),
}

/**
 * `getUserStatus`: one entry per recipient; `uuid` always present (null when unregistered). As
 * `ManagerImpl.getUserStatus`: a recipient the formatter refuses is not asked about (no `number`,
 * unregistered), and only when a number or username is left is Signal asked.
 */
export const getUserStatusMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const canonical = listParam(ctx.params, 'recipient', 'recipients').map((recipient) => {
      try {
        return { recipient, number: formatNumber(recipient, ctx.account) }
      } catch {
        return { recipient, number: undefined }
      }
    })
    const usernames = listParam(ctx.params, 'username', 'usernames')
    // Registration is asked of Signal's servers: without network, IOErrorException (-3).
    if (usernames.length > 0 || canonical.some((c) => c.number !== undefined)) failStatusIfUnreachable(ctx)
    return canonical.map(({ recipient, number }) => {
      const registered = number !== undefined && ctx.state.isRegistered(number)
      return {
        recipient,
        ...(number === undefined ? {} : { number }),
        uuid: registered ? ctx.state.uuidOf(number) : null,
        isRegistered: registered,
      }
    })
  },
}
