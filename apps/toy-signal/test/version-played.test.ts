// The signal-cli version the toy plays: `version` says it, and the answers that changed between
// releases follow it (the real 0.13.19 of the contract suite, or a 0.14.x daemon).
import { describe, expect, it } from 'vitest'
import { parseCliOptions } from '../src/cli-options.ts'
import { createToySignal, TOY_VERSION, type ToySignal } from '../src/index.ts'
import { rpc, startToy } from './toy-rpc.ts'

const A = '+15550000001'
const B = '+15550000002'

function toyPlaying(signalCliVersion?: string): Promise<ToySignal> {
  return startToy({
    accounts: [A, B],
    groups: [{ name: 'g', members: [A, B] }],
    ...(signalCliVersion === undefined ? {} : { signalCliVersion }),
  })
}

async function contactKeys(version: string): Promise<string[]> {
  return Object.keys(
    (await rpc(await toyPlaying(version), 'listContacts', { account: A, allRecipients: true })).result[0],
  )
}

describe('the version the toy plays', () => {
  it(`answers ${TOY_VERSION} by default and the configured version otherwise`, async () => {
    expect((await rpc(await toyPlaying(), 'version')).result).toEqual({ version: TOY_VERSION })
    expect((await rpc(await toyPlaying('0.13.19'), 'version')).result).toEqual({ version: '0.13.19' })
  })

  it('lists isAdmin on members from 0.14.1 only; admins are in `admins` either way', async () => {
    const members = async (v: string) => (await rpc(await toyPlaying(v), 'listGroups', { account: A })).result[0]
    const old = await members('0.13.19')
    expect(old.members.map((m: object) => Object.keys(m).sort())).toEqual([
      ['number', 'uuid'],
      ['number', 'uuid'],
    ])
    expect(old.admins.map((m: { number: string }) => m.number)).toEqual([A])
    const recent = await members('0.14.1')
    expect(recent.members.map((m: { isAdmin: boolean }) => m.isAdmin)).toEqual([true, false])
  })

  it('honours noUrgent from 0.14.0 and records each send as urgent or not; before, the param is ignored', async () => {
    for (const [version, urgent] of [
      ['0.14.0', false],
      ['0.13.19', true],
    ] as const) {
      const toy = await toyPlaying(version)
      const groupId = toy.groups[0]?.id
      // Both are taken: the list of sends below holds them, each with its urgency.
      await rpc(toy, 'send', { account: A, groupId, message: 'm', noUrgent: true })
      await rpc(toy, 'send', { account: A, groupId, message: 'p' })
      expect(toy.sends().map((s) => [s.message, s.urgent])).toEqual([
        ['m', urgent],
        ['p', true],
      ])
    }
  })

  it('answers getAttachment without an id as its release does: -32603 before 0.14.0, -1 after', async () => {
    expect((await rpc(await toyPlaying('0.13.19'), 'getAttachment', { account: A })).error).toEqual({
      code: -32603,
      message: 'null (NullPointerException)',
      data: null,
    })
    expect((await rpc(await toyPlaying('0.14.0'), 'getAttachment', { account: A })).error.message).toBe(
      'Missing attachment id parameter',
    )
  })

  it('adds isArchived to contacts from 0.14.1', async () => {
    expect(await contactKeys('0.13.19')).not.toContain('isArchived')
    expect(await contactKeys('0.14.1')).toContain('isArchived')
  })

  it('takes --signal-cli-version and the config key, and refuses what is not a version', async () => {
    expect(parseCliOptions(['--signal-cli-version', '0.13.19']).toy.signalCliVersion).toBe('0.13.19')
    expect(() => parseCliOptions(['--signal-cli-version', 'latest'])).toThrow(/--signal-cli-version must be/)
    await expect(createToySignal({ signalCliVersion: '14' })).rejects.toMatchObject({ code: 'TOY_CONFIG_INVALID' })
  })
})

describe('answers worded as the real daemon words them', () => {
  it('refuses an empty message before looking the group up, and names a bad id with Java texts', async () => {
    const toy = await toyPlaying()
    const unknown = Buffer.alloc(32, 7).toString('base64')
    expect((await rpc(toy, 'send', { account: A, groupId: unknown })).error.message).toMatch(/^Sending empty message/)
    expect((await rpc(toy, 'send', { account: A, groupId: 'nope!', message: 'x' })).error.message).toBe(
      'Invalid group id: Failed to decode groupId (must be base64) "nope!": Illegal base64 character 21',
    )
    expect((await rpc(toy, 'listGroups', { account: A, groupId: 'YWJj' })).error.message).toMatch(
      /: Invalid group id of size 3$/,
    )
  })

  it('answers {} to a message-request response for a group it does not hold, reading the type first', async () => {
    const toy = await toyPlaying()
    const unknown = Buffer.alloc(32, 7).toString('base64')
    expect(
      (await rpc(toy, 'sendMessageRequestResponse', { account: A, groupId: unknown, type: 'accept' })).result,
    ).toEqual({})
    expect((await rpc(toy, 'sendMessageRequestResponse', { account: A })).error.message).toBe(
      'Cannot invoke "String.toUpperCase()" because "typeObj" is null (NullPointerException)',
    )
  })

  it('sends typing to a group with the send result shape; -1 for an unknown group or no target', async () => {
    const toy = await toyPlaying()
    const groupId = toy.groups[0]?.id
    const typing = (await rpc(toy, 'sendTyping', { account: A, groupId })).result
    expect(
      typing.results.map((r: { recipientAddress: { number: string }; type: string }) => [
        r.recipientAddress.number,
        r.type,
      ]),
    ).toEqual([[B, 'SUCCESS']])
    const unknown = Buffer.alloc(32, 7).toString('base64')
    expect((await rpc(toy, 'sendTyping', { account: A, groupId: unknown, stop: true })).error).toEqual({
      code: -1,
      message: `Failed to send to group: Group not found: ${unknown}`,
      data: null,
    })
    expect((await rpc(toy, 'sendTyping', { account: A })).error.message).toBe('No recipients given')
  })

  it('fails an attachment send on the connection before the group lookup when Signal is unreachable', async () => {
    const toy = await startToy({ accounts: [A], faults: true })
    toy.faults.setNetworkLoss(true)
    const unknown = Buffer.alloc(32, 7).toString('base64')
    const answer = await rpc(toy, 'send', {
      account: A,
      groupId: unknown,
      message: 'x',
      attachment: 'data:;base64,AA==',
    })
    expect(answer.error).toEqual({
      code: -32603,
      message: 'Failed to send message: No connection! (IOException) (UnexpectedErrorException)',
      data: null,
    })
    expect((await rpc(toy, 'send', { account: A, groupId: unknown, message: 'x' })).error.message).toBe(
      `Group not found: ${unknown}`,
    )
  })

  it('words a wrong param type with the JVM module note, the singular list name taking one value', async () => {
    const toy = await toyPlaying()
    const groupId = toy.groups[0]?.id
    expect((await rpc(toy, 'send', { account: A, groupId, attachments: 5 })).error.message).toBe(
      "class java.lang.Integer cannot be cast to class java.util.List (java.lang.Integer and java.util.List are in module java.base of loader 'bootstrap') (ClassCastException)",
    )
    expect((await rpc(toy, 'send', { account: A, groupId, attachment: 5 })).error.message).toMatch(
      /^class java\.lang\.Integer cannot be cast to class java\.lang\.String \(/,
    )
  })
})
