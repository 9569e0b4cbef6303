/**
 * `listContacts`: the JsonContact shape of the version played (`isArchived` from 0.14.1). The toy
 * stores no contact records (names, colors, blocks), so only `allRecipients` lists anyone: the
 * account itself, the other local accounts and the members of its groups, each with empty contact
 * fields. A profile is shown for the account itself and for everyone it shares a group with (their
 * profile keys travel with the group, as on Signal), named when the toy was given a name.
 * @see docs/daemon-contract.md §7
 */
import type { MethodDefinition } from './context.ts'
import { flagParam, listParam } from './params.ts'
import { resolveRecipient } from './targets.ts'

function profileOf(known: boolean, givenName: string | undefined) {
  if (!known && givenName === undefined) return null
  return {
    lastUpdateTimestamp: 0,
    givenName: givenName ?? null,
    familyName: null,
    about: null,
    aboutEmoji: null,
    hasAvatar: false,
    mobileCoinAddress: null,
  }
}

export const listContactsMethod: MethodDefinition = {
  routing: 'account',
  run(ctx) {
    const filter = listParam(ctx.params, 'recipient', 'recipients').map((r) => resolveRecipient(ctx.state, r))
    if (!flagParam(ctx.params, 'allRecipients')) return []
    const known = new Set([ctx.account, ...ctx.state.accounts])
    const keyed = new Set([ctx.account])
    for (const group of ctx.state.groups.values()) {
      if (group.members.includes(ctx.account) || group.formerMembers.has(ctx.account))
        for (const m of group.members) {
          known.add(m)
          keyed.add(m)
        }
    }
    const archived = ctx.state.version.atLeast('0.14.1') ? { isArchived: false } : {}
    return [...known]
      .filter((n) => filter.length === 0 || filter.includes(n))
      .map((number) => ({
        number,
        uuid: ctx.state.uuidOf(number),
        username: null,
        name: '',
        givenName: null,
        familyName: null,
        nickName: null,
        nickGivenName: null,
        nickFamilyName: null,
        note: null,
        color: null,
        ...archived,
        isBlocked: false,
        isHidden: false,
        messageExpirationTime: 0,
        profileSharing: false,
        unregistered: !ctx.state.isRegistered(number),
        // A profile the toy was given a name for (ToySignalOptions.names), as Signal shares it with the people one shares a group with.
        profile: profileOf(keyed.has(number), ctx.state.profileName(number)),
      }))
  },
}
