import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.ts'
import { EXIT_CODES } from '../src/exit-codes.ts'
import { helpText } from '../src/help.ts'
import { chatIn, configFor, isAlive, LOOP, OPERATOR, startChat, stopsCleanly, until, useWorld } from './harness.ts'

const worlds = useWorld()

describe('exit codes', () => {
  it('1: no operator means nobody, refused before anything starts', () => {
    expect(() => loadConfig(['chat', 'topic'], {})).toThrow(
      expect.objectContaining({ code: 'CHAT_NO_OPERATOR', exitCode: 1 }),
    )
  })

  it('1: the account is not on the daemon, with how to link one', async () => {
    const world = await worlds.world()
    const chat = chatIn(world, 't', [], { configEnv: { SIGNAL_CLI_ACCOUNT: '+15559999999' } })
    expect(await chat.exit).toBe(EXIT_CODES.setup)
    expect(chat.logs.join('\n')).toContain('signal-cli link')
    expect(chat.logs.join('\n')).not.toContain('+15559999999')
  })

  it('2: a non-loopback daemon is refused without --unsafe-remote-endpoint', async () => {
    const world = await worlds.world()
    const chat = chatIn(world, 't', [], { configEnv: { SIGNAL_CLI_URL: 'http://192.0.2.10:8080' } })
    expect(await chat.exit).toBe(EXIT_CODES.remoteEndpointRefused)
    expect(world.toy.sends()).toEqual([])
  })

  it('3: the group message request cannot be accepted; nothing is posted', async () => {
    const world = await worlds.world()
    const chat = chatIn(world, 't', [], {
      wrapSignal: (s) => ({
        ...s,
        acceptGroup: async (id) => {
          world.toy.faults.failNextRpc(1)
          return s.acceptGroup(id)
        },
      }),
    })
    expect(await chat.exit).toBe(EXIT_CODES.groupSetupFailed)
    expect(world.toy.sends()).toEqual([])
    expect(world.agentRuns()).toEqual([])
    // The new group is left behind by the loop's account: the operator sees it left, not a live request.
    const groups = (await world.rpc(OPERATOR, 'listGroups', {})) as Array<{
      id: string
      members: Array<{ number: string }>
    }>
    expect(groups).toHaveLength(1)
    expect(groups[0]?.members.map((m) => m.number)).toEqual([OPERATOR])
    const ours = (await world.rpc(LOOP, 'listGroups', { groupId: groups[0]?.id })) as Array<{ isMember: boolean }>
    expect(ours[0]?.isMember).toBe(false)
    expect(chat.logs.join('\n')).toContain('left the new group')
  })

  it('1: the announcement cannot be posted within the delivery timeout; no turn runs', async () => {
    const world = await worlds.world()
    await world.failNextCalls('send', 1000, {
      code: -32603,
      message: 'Failed to send message: [429] Rate limit exceeded',
    })
    const chat = chatIn(world, 'echo never', ['--delivery-timeout', '1'])
    expect(await chat.exit).toBe(EXIT_CODES.setup)
    expect(chat.logs.join('\n')).toContain(
      'could not post the announcement for 1s (daemon error -32603 on send); nothing was run',
    )
    expect(world.agentRuns()).toEqual([])
    expect(chat.events.events.some((e) => e.type === 'posted')).toBe(false)
  })

  it('3: the group cannot be created', async () => {
    const world = await worlds.world()
    const chat = chatIn(world, 't', [], {
      wrapSignal: (s) => ({
        ...s,
        createGroup: async (name, members) => {
          world.toy.faults.failNextRpc(1)
          return s.createGroup(name, members)
        },
      }),
    })
    expect(await chat.exit).toBe(EXIT_CODES.groupSetupFailed)
  })

  it('4: the daemon does not come back within the retry budget; the running turn is killed first', async () => {
    const { world, chat } = await worlds.chat('hang', ['--retry-budget', '3'])
    await until(() => world.agentRuns().length === 1)
    const agentPid = (world.agentRuns()[0] as unknown as { pid: number }).pid
    await world.toy.close()
    expect(await chat.exit).toBe(EXIT_CODES.daemonLost)
    expect(isAlive(agentPid)).toBe(false)
    expect(chat.logs.join('\n')).toContain('not restored after 3 attempts')
  })

  it('5: an agent that cannot resume a pinned session id', async () => {
    const world = await worlds.world()
    const argv = [
      'chat',
      't',
      '--operator',
      '+15550000002',
      '--agent',
      'command',
      '--agent-command',
      'node fake.mjs -p {prompt}',
    ]
    const chat = startChat(world, configFor(world, argv))
    expect(await chat.exit).toBe(EXIT_CODES.agentCannotResume)
    expect(world.toy.sends()).toEqual([])
  })

  it('--help lists every exit code', () => {
    for (const code of Object.values(EXIT_CODES)) expect(helpText()).toMatch(new RegExp(`^  ${code}  `, 'm'))
  })
})

describe('single-account daemon (signal-cli -a)', () => {
  it('needs SIGNAL_CLI_ACCOUNT to know its own number (exit 1), and runs with it', async () => {
    const world = await worlds.world({ singleAccount: true })
    const without = chatIn(world, 't', [], { configEnv: { SIGNAL_CLI_ACCOUNT: '' } })
    expect(await without.exit).toBe(EXIT_CODES.setup)
    expect(without.logs.join('\n')).toContain('set SIGNAL_CLI_ACCOUNT')
    const chat = chatIn(world, 'echo single')
    await chat.replied('echo single')
    await stopsCleanly(chat)
  })
})
