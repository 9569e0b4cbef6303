// terminateGroup (signal-cli 0.14.8): an admin ends a group for everyone; the members hear of it,
// and nothing more can be sent to it or changed in it. An older release does not know the method.
import { describe, expect, it } from 'vitest'
import { rpc, startToy } from './toy-rpc.ts'

const A = '+15550000001'
const B = '+15550000002'

async function toyPlaying(signalCliVersion: string) {
  const toy = await startToy({ accounts: [A, B], groups: [{ name: 'g', members: [A, B] }], signalCliVersion })
  return { toy, groupId: toy.groups[0]?.id ?? '' }
}

describe('terminateGroup', () => {
  it('is -32601 Method not implemented below 0.14.8, as the real 0.13.19 answers', async () => {
    for (const version of ['0.13.19', '0.14.7']) {
      const { toy, groupId } = await toyPlaying(version)
      expect((await rpc(toy, 'terminateGroup', { account: A, groupId })).error).toMatchObject({
        code: -32601,
        message: 'Method not implemented',
      })
      expect(Object.keys((await rpc(toy, 'listGroups', { account: A })).result[0])).not.toContain('isTerminated')
    }
  })

  it('refuses a member who is not an admin, and the group stays live', async () => {
    const { toy, groupId } = await toyPlaying('0.14.8')
    const answer = await rpc(toy, 'terminateGroup', { account: B, groupId })
    expect(answer.error.code).toBe(-32603)
    expect(answer.error.message).toContain('[403] Authorization failed')
    expect((await rpc(toy, 'listGroups', { account: B })).result[0].isTerminated).toBe(false)
    expect((await rpc(toy, 'send', { account: B, groupId, message: 'still open' })).result).toBeDefined()
  })

  it('ends the group for everyone: listed as terminated, the update sent to the members, sends and changes refused', async () => {
    const { toy, groupId } = await toyPlaying('0.14.8')
    const ended = await rpc(toy, 'terminateGroup', { account: A, groupId })
    expect(
      ended.result.results.map((r: { recipientAddress: { number: string } }) => r.recipientAddress.number),
    ).toEqual([B])
    for (const account of [A, B]) {
      const [group] = (await rpc(toy, 'listGroups', { account })).result
      expect([group.isTerminated, group.isMember]).toEqual([true, true])
      const sent = await rpc(toy, 'send', { account, groupId, message: 'after' })
      expect(sent.error).toMatchObject({ code: -1, message: `Group is terminated: g (${groupId})` })
    }
    expect((await rpc(toy, 'updateGroup', { account: A, groupId, name: 'renamed' })).error.code).toBe(-1)
    // A second call changes nothing.
    expect((await rpc(toy, 'terminateGroup', { account: A, groupId })).result).toEqual({})
    expect(toy.snapshotGroups()[0]?.terminated).toBe(true)
    // A member may still leave an ended group.
    expect((await rpc(toy, 'quitGroup', { account: B, groupId })).error).toBeUndefined()
  })
})
