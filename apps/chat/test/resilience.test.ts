import { statSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { AGENT_SECRET, LOOP, OPERATOR, resumeIn, STRANGER, stopsCleanly, until, useWorld } from './harness.ts'

const worlds = useWorld()

describe('membership re-check before every chunk', () => {
  it('withholds the rest of a reply while a stranger is in the group, and posts it once they are gone', async () => {
    const { world, chat, groupId } = await worlds.chat('lines 400')
    let added = false
    chat.events.hooks.push(async (e) => {
      if (!added && e.type === 'posted' && e.text.startsWith('(1/')) {
        added = true
        await world.rpc(OPERATOR, 'updateGroup', { groupId, members: [STRANGER] })
      }
    })
    const first = await chat.events.next('posted', (e) => e.text.startsWith('(1/'))
    const parts = Number(/^\(1\/(\d+)\)/.exec(first.text)?.[1])
    expect(parts).toBeGreaterThanOrEqual(3)
    const withheld = await chat.events.next('withheld')
    expect(withheld).toMatchObject({ reason: 'stranger', remaining: parts - 1 })
    // A stranger in the group cannot drive the agent either.
    await world.say(groupId, 'echo from a stranger', STRANGER)
    await chat.events.next('ignored', (e) => e.reason === 'not-operator')
    await chat.events.next('withheld', (e) => e !== withheld)
    expect(chat.events.posted().filter((t) => t.startsWith('(2/'))).toEqual([])
    expect(world.toy.sends().filter((s) => s.account === LOOP && s.message.startsWith('(2/'))).toEqual([])
    expect(chat.logs.some((l) => l.includes('membership check failed (stranger): withholding'))).toBe(true)

    // Only an admin may remove a member (Signal's servers refuse anyone else): the loop made the group.
    await world.rpc(LOOP, 'updateGroup', { groupId, removeMembers: [STRANGER] })
    await chat.events.next('posted', (e) => e.text.startsWith(`(${parts}/${parts})`))
    for (const chunk of chat.events.posted()) expect(new TextEncoder().encode(chunk).length).toBeLessThanOrEqual(2000)
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['lines 400'])
    await stopsCleanly(chat)
  })
})

describe('agent failures', () => {
  it('a crash posts a short redacted failure, keeps the chat, and the next turn resumes the same session', async () => {
    const { world, chat, sessionId } = await worlds.chat('crash')
    const failure = await chat.events.next('posted', (e) => e.text.startsWith('turn 1 failed'))
    expect(failure.text).toContain('the agent exited with status 3')
    expect(failure.text).toContain('fatal: cannot continue')
    expect(failure.text).not.toContain('hunter2hunter2')
    expect(failure.text).not.toContain(AGENT_SECRET)
    await chat.ask('echo still here')
    expect(world.agentRuns().map((r) => r.sessionId)).toEqual([sessionId, sessionId])
    await stopsCleanly(chat)
  })

  it('a turn timeout kills the turn and reports it as failed', async () => {
    const { chat } = await worlds.chat('hang', ['--turn-timeout', '1'])
    const failure = await chat.events.next('posted', (e) => e.text.startsWith('turn 1 failed'))
    expect(failure.text).toContain('killed after the turn timeout (1s)')
    await stopsCleanly(chat)
  })
})

describe('--resume after a restart', () => {
  it('re-attaches to the same group and agent session, says so, and never runs two processes on one session', async () => {
    const { world, chat: first, groupId, sessionId } = await worlds.chat('echo first')
    await first.turnEnded(1)
    await stopsCleanly(first)
    expect(first.logs.some((l) => l.includes(`--resume ${groupId}`))).toBe(true)

    const chats = join(world.stateRoot, 'e2e-col', 'chats')
    const stateFile = readdirSync(chats).find((f) => f.endsWith('.json')) as string
    expect(statSync(join(chats, stateFile)).mode & 0o777).toBe(0o600)
    expect(statSync(chats).mode & 0o777).toBe(0o700)

    const second = resumeIn(world, groupId)
    expect((await second.ready).sessionId).toBe(sessionId)
    const hello = await second.events.next('posted')
    expect(hello.text).toContain('resumed')
    expect(hello.text).toContain(`session ${sessionId}`)

    const third = resumeIn(world, groupId)
    expect(await third.exit).toBe(1)
    expect(third.logs.join('\n')).toContain('is running this agent session')

    await second.ask('echo again')
    expect(world.agentRuns().map((r) => [r.sessionId, r.prompt])).toEqual([
      [sessionId, 'echo first'],
      [sessionId, 'echo again'],
    ])
    await stopsCleanly(second)
  })
})

describe('daemon interruptions within the budget', () => {
  it('reconnects after the events stream is cut and takes the next message', async () => {
    const { world, chat } = await worlds.chat('echo hi')
    await chat.turnEnded(1)
    const connects = () => chat.events.events.filter((e) => e.type === 'events-connected').length
    world.toy.faults.cutStreams()
    await until(() => connects() >= 2)
    await chat.ask('echo after the cut')
    await stopsCleanly(chat)
  })
})
