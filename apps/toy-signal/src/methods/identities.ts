/**
 * `listIdentities` (`ListIdentitiesCommand`, JSON output): every identity key the account holds,
 * with its trust level; `number` narrows it to one person. The toy holds the keys of the account
 * itself, of everyone it shares a group with (sessions come with sending to them) and of everyone
 * whose key it held before (a key once stored stays), and
 * `updateContact` (`UpdateContactCommand`): the names the account gives someone (`name` is the
 * given name when no `givenName` is given, the family name then cleared); `updateProfile`: the
 * name the account picks for itself.
 * @see docs/daemon-contract.md §7
 */
import type { MethodContext, MethodDefinition } from './context.ts'
import { flagParam, stringParam } from './params.ts'
import { resolveRecipient } from './targets.ts'
import { RpcFailure, RPC_CODES } from '../rpc-failure.ts'

function holders(ctx: MethodContext): Set<string> {
  const known = new Set([ctx.account, ...ctx.state.people.identified(ctx.account)])
  for (const group of ctx.state.groups.values())
    if (group.members.includes(ctx.account) || group.formerMembers.has(ctx.account))
      for (const m of group.members) known.add(m)
  return known
}

export const listIdentitiesMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const only = stringParam(ctx.params, 'number')
    const number = only === undefined ? undefined : resolveRecipient(ctx.state, only)
    return [...holders(ctx)]
      .filter((n) => number === undefined || n === number)
      .map((n) => {
        const id = ctx.state.people.identity(ctx.account, n)
        return {
          number: n,
          uuid: ctx.state.uuidOf(n),
          fingerprint: id.fingerprint,
          safetyNumber: id.safetyNumber,
          scannableSafetyNumber: id.scannableSafetyNumber,
          trustLevel: id.trustLevel,
          addedTimestamp: id.addedTimestamp,
        }
      })
  },
}

export const updateContactMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const number = resolveRecipient(ctx.state, stringParam(ctx.params, 'recipient'), ctx.account)
    let givenName = stringParam(ctx.params, 'givenName') ?? null
    let familyName = stringParam(ctx.params, 'familyName') ?? null
    if (givenName === null) {
      givenName = stringParam(ctx.params, 'name') ?? null
      if (givenName !== null && familyName === null) familyName = ''
    }
    // An `expiration` is not kept: nothing in e2e-col reads a contact's timer.
    const change = {
      givenName,
      familyName,
      nickGivenName: stringParam(ctx.params, 'nickGivenName') ?? null,
      nickFamilyName: stringParam(ctx.params, 'nickFamilyName') ?? null,
      note: stringParam(ctx.params, 'note') ?? null,
    }
    // setContactName keeps a field given as null as it was.
    const given = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== null))
    ctx.state.people.setContact(ctx.account, number, given)
    return {}
  },
}

/**
 * `updateProfile` (`UpdateProfileCommand`): the account picks its profile name, which anyone it
 * shares a group with then sees (`givenName`, also read as `name`). The other profile fields
 * (family name, about) are accepted and not kept; an avatar path fails as a missing file, and
 * without network the update fails as the real one does (-3).
 */
export const updateProfileMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    // The avatar is read first (the toy keeps no files, so any path is missing), then Signal is asked.
    const avatar = stringParam(ctx.params, 'avatar')
    if (avatar !== undefined && !flagParam(ctx.params, 'removeAvatar'))
      throw new RpcFailure(RPC_CODES.ioError, `Update profile error: ${avatar} (No such file or directory)`)
    if (ctx.faults.networkLost()) throw new RpcFailure(RPC_CODES.ioError, 'Update profile error: Closed unexpectedly')
    const givenName = stringParam(ctx.params, 'givenName') ?? stringParam(ctx.params, 'name')
    if (givenName !== undefined) ctx.state.setProfileName(ctx.account, givenName)
    return {}
  },
}
