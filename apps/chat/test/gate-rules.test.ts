// The gate and the membership check on the wire: messages injected into the toy from any source
// and device, and invited or requesting members set on the group, each rule end to end.
import { describe, expect, it } from 'vitest'
import { LOOP, OPERATOR, STRANGER, stopsCleanly, useWorld } from './harness.ts'

const worlds = useWorld()

describe('the gate on sync copies', () => {
  it('takes your own number typed on the primary phone (device 1) and never on a linked device (device 2)', async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic', ['--operator', LOOP])
    await chat.turnEnded(1)
    await world.inject(groupId, 'echo typed on a linked laptop', { source: LOOP, sourceDevice: 2, sync: true })
    await chat.events.next('ignored', (e) => e.reason === 'sync-not-primary-device')
    await world.inject(groupId, 'echo typed on the phone', { source: LOOP, sourceDevice: 1, sync: true })
    await chat.replied('echo typed on the phone')
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['echo topic', 'echo typed on the phone'])
    await stopsCleanly(chat)
  })

  it("refuses a sync copy from the primary phone when the loop's own number is not an operator", async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic')
    await chat.turnEnded(1)
    await world.inject(groupId, 'echo from the loop account', { source: LOOP, sourceDevice: 1, sync: true })
    await chat.events.next('ignored', (e) => e.reason === 'not-operator')
    // The operator's own message still runs: the loop is alive and the rule, not a stall, refused it.
    await world.inject(groupId, 'echo from the operator', { source: OPERATOR, sourceDevice: 2 })
    await chat.replied('echo from the operator')
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['echo topic', 'echo from the operator'])
    await stopsCleanly(chat)
  })

  it("refuses a data message that claims to come from the loop's own number, even when it is an operator", async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic', ['--operator', LOOP])
    await chat.turnEnded(1)
    await world.inject(groupId, 'echo spoofed', { source: LOOP, sourceDevice: 1 })
    await chat.events.next('ignored', (e) => e.reason === 'own-account-data')
    await world.inject(groupId, 'echo from a stranger', { source: STRANGER, sourceDevice: 1 })
    await chat.events.next('ignored', (e) => e.reason === 'not-operator')
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['echo topic'])
    await stopsCleanly(chat)
  })
})

describe('the membership check counts invited and requesting members', () => {
  for (const list of ['requesting', 'pending'] as const) {
    it(`withholds every post while a stranger is ${list === 'pending' ? 'invited' : 'requesting to join'}, and posts once they are gone`, async () => {
      const { world, chat, groupId } = await worlds.chat('echo topic')
      await chat.turnEnded(1)
      await chat.replied('echo topic')
      await world.setGroupRequests(groupId, { [list]: [STRANGER] })
      await world.say(groupId, 'echo while someone waits')
      const withheld = await chat.events.next('withheld')
      expect(withheld).toMatchObject({ reason: 'stranger', remaining: 1 })
      await chat.events.next('withheld', (e) => e !== withheld)
      expect(chat.events.posted().some((t) => t.includes('prompt=echo while someone waits'))).toBe(false)
      expect(world.toy.sends().some((s) => s.message.includes('prompt=echo while someone waits'))).toBe(false)
      await world.setGroupRequests(groupId, {})
      await chat.replied('echo while someone waits')
      await stopsCleanly(chat)
    })
  }
})
