import { describe, expect, it } from 'vitest'
import { chatGroupName } from '../src/group-name.ts'
import { AGENT_SECRET, LOOP, OPERATOR, stopsCleanly, useWorld } from './harness.ts'

const worlds = useWorld()

describe('a conversation from the phone', () => {
  it('creates and accepts the group, announces, runs the topic, then each message as a turn in one session', async () => {
    const calls: string[] = []
    const { world, chat, groupId, sessionId } = await worlds.chat('Review PR #42', [], {
      wrapSignal: (s) => ({
        ...s,
        createGroup: async (name, members) => {
          calls.push(`createGroup ${name} ${members.join(',')}`)
          return s.createGroup(name, members)
        },
        acceptGroup: async (id) => {
          calls.push('acceptGroup')
          return s.acceptGroup(id)
        },
        sendGroup: async (id, text) => {
          calls.push('send')
          return s.sendGroup(id, text)
        },
      }),
    })
    const announce = await chat.events.next('posted')
    expect(calls.slice(0, 3)).toEqual([
      `createGroup ${chatGroupName({ host: 'testbox', topic: 'Review PR #42' })} ${OPERATOR}`,
      'acceptGroup',
      'send',
    ])
    expect(announce.text).toContain(`session ${sessionId}`)
    expect(announce.text).toContain('allowed tools (what a message here can make the agent do): view, grep, glob')
    expect(announce.text).toContain('cancel')

    await chat.replied('Review PR #42')
    const ts = await world.say(groupId, 'echo second turn')
    const reply = await chat.replied('echo second turn')
    expect(reply.text).toBe(`session=${sessionId} prompt=echo second turn allow=view,grep,glob\n`)
    await chat.events.next('receipt', (e) => e.target === ts && e.state === 'done')
    expect(
      chat.events.events
        .filter((e) => e.type === 'receipt' && e.target === ts)
        .map((e) => (e as { state: string }).state),
    ).toEqual(['queued', 'running', 'done'])
    expect(world.agentRuns().map((r) => r.sessionId)).toEqual([sessionId, sessionId])

    // The group as the daemon sees it: our account and the operator, nobody else.
    const groups = (await world.rpc(LOOP, 'listGroups', { groupId })) as Array<{ members: Array<{ number: string }> }>
    expect(new Set(groups[0]?.members.map((m) => m.number))).toEqual(new Set([LOOP, OPERATOR]))

    await world.say(groupId, 'stop')
    expect(await chat.exit).toBe(0)
    const after = (await world.rpc(OPERATOR, 'listGroups', { groupId })) as Array<{
      members: Array<{ number: string }>
    }>
    expect(after[0]?.members.map((m) => m.number)).toEqual([OPERATOR])
  })

  it('redacts the reply before posting: env values, provider tokens and URL passwords', async () => {
    const { chat } = await worlds.chat('secrets')
    const reply = await chat.events.next('posted', (e) => e.text.includes('token from env'))
    expect(reply.text).not.toContain(AGENT_SECRET)
    expect(reply.text).not.toContain('ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8')
    expect(reply.text).not.toContain('AKIAUJZDE8GXD6NCF10E')
    expect(reply.text).not.toContain('Xq9-pg-Pa55word')
    expect(reply.text).toContain('[REDACTED:')
    for (const line of chat.logs) expect(line).not.toContain(OPERATOR)
    await stopsCleanly(chat)
  })
})
