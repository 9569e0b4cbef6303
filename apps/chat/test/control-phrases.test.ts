import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { chatIn, isAlive, LOOP, OPERATOR, stopsCleanly, until, useWorld } from './harness.ts'

const worlds = useWorld()

describe('control phrases', () => {
  it('status reports session, running turn, allowlist, queue and the last membership check', async () => {
    const { world, chat, groupId, sessionId } = await worlds.chat('hang')
    await chat.events.next('turn-started')
    await until(() => world.agentRuns().length === 1)
    // The agent has printed "hanging\n" (8 bytes) by now or very soon; status counts bytes as they
    // arrive, long before the liveness heartbeat (60 s in these tests).
    const statuses = () => chat.events.posted().filter((t) => t.startsWith('status:'))
    for (let asked = 1; asked <= 20; asked++) {
      await world.say(groupId, asked === 1 ? '  STATUS ' : 'status')
      await until(() => statuses().length >= asked, 10_000, 'a status answer')
      if (statuses().at(-1)?.includes('(8 bytes')) break
    }
    const status = { text: statuses().at(-1) ?? '' }
    expect(status.text).toMatch(/^status: turn 1 running for \d+s \(8 bytes of output so far\)/)
    expect(status.text).toContain(`session ${sessionId}`)
    expect(status.text).toContain('allowed tools: view, grep, glob')
    expect(status.text).toContain('queue: 0/32')
    expect(status.text).toMatch(/last membership check: \d+s ago, ok/)
    await stopsCleanly(chat)
  })

  it('cancel pre-empts the running turn, kills its grandchild, keeps the chat and the queue', async () => {
    const world = await worlds.world()
    const pidFile = join(world.stateRoot, 'grandchild.pid')
    const chat = chatIn(world, 'idle start', [], { env: { FAKE_AGENT_PIDFILE: pidFile } })
    const { groupId } = await chat.ready
    await chat.turnEnded(1)
    {
      const hung = await world.say(groupId, 'grandchild')
      await chat.events.next('turn-started', (e) => e.turn === 2)
      await until(() => {
        try {
          return Number(readFileSync(pidFile, 'utf8')) > 0
        } catch {
          return false
        }
      })
      const grandchild = Number(readFileSync(pidFile, 'utf8'))
      expect(isAlive(grandchild)).toBe(true)
      const queued = await world.say(groupId, 'echo after cancel')
      await chat.events.next('receipt', (e) => e.target === queued && e.state === 'queued')
      await world.say(groupId, 'Cancel')
      await chat.events.next('receipt', (e) => e.target === hung && e.state === 'cancelled')
      await until(() => !isAlive(grandchild))
      await chat.events.next('posted', (e) => e.text === 'turn 2 cancelled; the chat goes on.')
      await chat.replied('echo after cancel')
    }
    await stopsCleanly(chat)
  })

  it('kill ends the chat: kills the running turn, cancels what waits, leaves the group, exit 0', async () => {
    const { world, chat, groupId } = await worlds.chat('hang')
    await until(() => world.agentRuns().length === 1)
    const waiting = await world.say(groupId, 'echo never runs')
    await chat.events.next('receipt', (e) => e.target === waiting && e.state === 'queued')
    await world.say(groupId, 'kill')
    expect(await chat.exit).toBe(0)
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['hang'])
    const groups = (await world.rpc(LOOP, 'listGroups', { groupId })) as Array<{ isMember: boolean }>
    expect(groups[0]?.isMember).toBe(false)
    await chat.events.next('receipt', (e) => e.target === waiting && e.state === 'cancelled')
  })

  it('a sentence containing stop is a prompt, not a control phrase', async () => {
    const { chat } = await worlds.chat('echo hi')
    await chat.turnEnded(1)
    await chat.ask('please stop the review')
    await stopsCleanly(chat)
  })
})

describe('the queue', () => {
  it('answers a message that does not fit instead of dropping it', async () => {
    const { world, chat, groupId } = await worlds.chat('hang', ['--inbox-capacity', '1'])
    await until(() => world.agentRuns().length === 1)
    const first = await world.say(groupId, 'echo one')
    await chat.events.next('receipt', (e) => e.target === first && e.state === 'queued')
    await world.say(groupId, 'echo two')
    await chat.events.next('posted', (e) => e.text.startsWith('queue full (1 waiting), message not taken'))
    await world.say(groupId, 'cancel')
    await chat.replied('echo one')
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['hang', 'echo one'])
    await stopsCleanly(chat)
  })
})

describe('the gate on the wire', () => {
  it('ignores messages in other groups and never runs them', async () => {
    const { world, chat } = await worlds.chat('echo hi')
    await chat.turnEnded(1)
    const other = (await world.rpc(OPERATOR, 'updateGroup', { name: 'other', members: [LOOP] })) as { groupId: string }
    await world.say(other.groupId, 'echo from elsewhere')
    await chat.events.next('ignored', (e) => e.reason === 'other-group')
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['echo hi'])
    await stopsCleanly(chat)
  })
})

describe('one number for the loop and the operator (signal-cli linked to your own number)', () => {
  it('takes what you type on your primary phone (a sync copy from device 1) and never its own posts', async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic', ['--operator', LOOP])
    await chat.turnEnded(1)
    // Our own posts come back on our stream as sync copies from device 1: dropped by timestamp.
    await chat.events.next('ignored', (e) => e.reason === 'own-post')
    await world.say(groupId, 'echo typed on my phone', LOOP)
    await chat.replied('echo typed on my phone')
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['echo topic', 'echo typed on my phone'])
    await stopsCleanly(chat)
  })
})
