/**
 * `listContacts`: the JsonContact shape of the version played (`isArchived` from 0.14.1). The toy
 * keeps only the names of contact records (`updateContact`, ToySignalOptions.contacts; no colors,
 * blocks or timers), and only `allRecipients` lists anyone: the account itself, the other local
 * accounts and the members of its groups, with the names the account gave them. A profile is shown for the account itself and for everyone it shares a group with (their
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
    const filter = listParam(ctx.params, 'recipient', 'recipients').map((r) =>
      resolveRecipient(ctx.state, r, ctx.account),
    )
    const all = flagParam(ctx.params, 'allRecipients')
    // `blocked: true` lists only blocked recipients, and the toy blocks no one.
    if (flagParam(ctx.params, 'blocked')) return []
    // Without allRecipients only contact records are listed (RecipientStore's onlyContacts).
    const known = new Set(all ? [ctx.account, ...ctx.state.accounts] : [])
    const keyed = new Set([ctx.account])
    for (const group of ctx.state.groups.values()) {
      if (group.members.includes(ctx.account) || group.formerMembers.has(ctx.account))
        for (const m of group.members) {
          if (all) known.add(m)
          keyed.add(m)
        }
    }
    for (const n of ctx.state.people.contacted(ctx.account)) known.add(n)
    const archived = ctx.state.version.atLeast('0.14.1') ? { isArchived: false } : {}
    return [...known]
      .filter((n) => filter.length === 0 || filter.includes(n))
      .map((number) => {
        const c = ctx.state.people.contact(ctx.account, number)
        return {
          number,
          uuid: ctx.state.uuidOf(number),
          username: null,
          // JsonContact's name is Contact.getName(): given and family name joined.
          name: [c?.givenName, c?.familyName].filter((x) => x !== null && x !== undefined && x !== '').join(' '),
          givenName: c?.givenName ?? null,
          familyName: c?.familyName ?? null,
          nickName: null,
          nickGivenName: c?.nickGivenName ?? null,
          nickFamilyName: c?.nickFamilyName ?? null,
          note: c?.note ?? null,
          color: null,
          ...archived,
          isBlocked: false,
          isHidden: false,
          messageExpirationTime: 0,
          profileSharing: false,
          unregistered: !ctx.state.isRegistered(number),
          // A profile the toy was given a name for (ToySignalOptions.names), as Signal shares it with the people one shares a group with.
          profile: profileOf(keyed.has(number), ctx.state.profileName(number)),
        }
      })
  },
}
