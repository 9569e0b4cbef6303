/**
 * Contact records and identity keys as signal-cli keeps them: `updateContact` names someone,
 * `listContacts` says so in the contact fields (profile names stay apart), and `listIdentities`
 * reads each key's trust level, which changes when the person installs Signal again and becomes
 * verified when safety numbers are compared.
 */
import { describe, expect, it } from 'vitest'
import { rpc, startToy } from './toy-rpc.ts'

const A = '+15555550101'
const B = '+15555550102'
const C = '+15555550103'

async function toy() {
  return startToy({
    accounts: [A, B],
    groups: [{ name: 'g', members: [A, B, C] }],
    names: { [B]: 'Bob', [C]: 'Bob' },
    contacts: { [A]: { [B]: 'Bob' } },
  })
}

describe('contacts and identities', () => {
  it('a contact record fills the contact fields; a stranger named the same only has a profile name', async () => {
    const t = await toy()
    const all = (await rpc(t, 'listContacts', { account: A, allRecipients: true })).result as {
      number: string
      name: string
      givenName: string | null
      profile: { givenName: string | null } | null
    }[]
    const of = (n: string) => all.find((c) => c.number === n)
    expect(of(B)).toMatchObject({ name: 'Bob', givenName: 'Bob', profile: { givenName: 'Bob' } })
    expect(of(C)).toMatchObject({ name: '', givenName: null, profile: { givenName: 'Bob' } })
    // Without allRecipients only contact records are listed.
    const only = (await rpc(t, 'listContacts', { account: A })).result as { number: string }[]
    expect(only.map((c) => c.number)).toEqual([B])
  })

  it('updateContact names someone (name is the given name, the family name cleared) and answers {}', async () => {
    const t = await toy()
    expect((await rpc(t, 'updateContact', { account: A, recipient: C, name: 'Carol' })).result).toEqual({})
    const listed = (await rpc(t, 'listContacts', { account: A, recipient: [C] })).result
    expect(listed).toMatchObject([{ number: C, name: 'Carol', givenName: 'Carol', familyName: '' }])
    // No recipient: the NullPointerException signal-cli 0.13.19 meets (measured).
    expect((await rpc(t, 'updateContact', { account: A })).error).toMatchObject({
      code: -32603,
      message: 'Cannot invoke "String.startsWith(String)" because "identifier" is null (NullPointerException)',
    })
    expect((await rpc(t, 'updateContact', { account: A, recipient: 'nope', name: 'x' })).error).toMatchObject({
      code: -1,
      message: "Invalid phone number 'nope': No valid characters found.",
    })
  })

  it('updateProfile: the profile name an account picks is what others list', async () => {
    const t = await toy()
    expect((await rpc(t, 'updateProfile', { account: B, givenName: 'Frank' })).result).toEqual({})
    const listed = (await rpc(t, 'listContacts', { account: A, recipient: [B] })).result
    expect(listed).toMatchObject([{ number: B, name: 'Bob', profile: { givenName: 'Frank' } }])
  })

  it('listIdentities: trusted on first use, UNTRUSTED after the person installs Signal again, verified after a comparison', async () => {
    const t = await toy()
    const levels = async () =>
      Object.fromEntries(
        ((await rpc(t, 'listIdentities', { account: A })).result as { number: string; trustLevel: string }[]).map(
          (i) => [i.number, i.trustLevel],
        ),
      )
    expect(await levels()).toEqual({ [A]: 'TRUSTED_VERIFIED', [B]: 'TRUSTED_UNVERIFIED', [C]: 'TRUSTED_UNVERIFIED' })
    const before = (await rpc(t, 'listIdentities', { account: A, number: C })).result
    expect(before).toHaveLength(1)
    expect(before[0].safetyNumber).toMatch(/^(\d{5} ){11}\d{5}$/)
    t.changeIdentity(C)
    expect(await levels()).toMatchObject({ [C]: 'UNTRUSTED', [B]: 'TRUSTED_UNVERIFIED' })
    const after = (await rpc(t, 'listIdentities', { account: A, number: C })).result
    expect(after[0].safetyNumber).not.toBe(before[0].safetyNumber)
    t.verifyIdentity(A, C)
    expect(await levels()).toMatchObject({ [C]: 'TRUSTED_VERIFIED' })
    // A key once held stays listed after the person leaves every shared group.
    await rpc(t, 'quitGroup', { account: B, groupId: t.groups[0]?.id })
    expect(Object.keys(await levels())).toContain(B)
    // B's view is B's own.
    const bView = (await rpc(t, 'listIdentities', { account: B, number: C })).result
    expect(bView[0].trustLevel).toBe('UNTRUSTED')
  })
})
