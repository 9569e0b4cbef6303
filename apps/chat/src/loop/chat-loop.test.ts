// The running chat wired from its parts, over an in-memory daemon and a faked agent: the
// announcement before any turn, the topic as the first turn, control phrases answered at once
// and audited, and an operator's stop ending the chat by leaving the group.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { EXIT_CODES } from '../exit-codes.ts'
import { agent } from './chat-loop-agent-fixture.ts'
import { cleanUp, GROUP, SESSION, startChat as start, STRANGER } from './chat-loop-fixture.ts'
import { within } from '../../test/wait.ts'

vi.mock('../agent/turn-runner.ts', () => import('./chat-loop-agent-fixture.ts'))
afterEach(cleanUp)

describe('the chat loop', () => {
  it('announces first, runs the topic as turn 1, answers status and cancel, and stops on an operator stop', async () => {
    const c = start()
    await vi.waitFor(() => expect(agent.prompts).toEqual(['the topic']), within)
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('answer to the topic'))).toBe(true), within)
    // The announcement is the first thing posted, before any reply.
    expect(c.events[0]).toMatchObject({ type: 'ready', groupId: GROUP })
    expect(c.sent[0]).toContain('box')
    expect(c.sent[0]).not.toContain('answer to')
    // Each post is reported with its sent timestamp; a post without a file names none.
    expect(c.events.find((e) => e.type === 'posted')).toStrictEqual({
      type: 'posted',
      text: c.sent[0],
      timestamp: 1_000_000,
    })
    c.say('status')
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes(SESSION) && t !== c.sent[0])).toBe(true), within)
    c.say('cancel')
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('nothing is running.'))).toBe(true), within)
    c.say('next prompt')
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('answer to next prompt'))).toBe(true), within)
    expect(agent.prompts).toEqual(['the topic', 'next prompt'])
    expect(c.state.turns).toBe(2)
    c.say('stop')
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.quits()).toBe(1)
    expect(c.logs).toContain('stop from an operator: ending the chat')
    // Nothing broke on the way (a chat without a console reads none).
    expect(c.logs.filter((l) => l.includes('failed'))).toEqual([])
    expect(c.audit()).toEqual([
      'turn: done',
      'control: status answered',
      'control: nothing to cancel',
      'prompt: queued (position 1)',
      'turn: done',
      'control: chat ended',
    ])
  })

  it('refuses a prompt when the queue is full, and cancel kills the running turn', async () => {
    const c = start({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'ready')).toBe(true), within)
    c.say('hold on')
    await vi.waitFor(() => expect(agent.prompts).toEqual(['hold on']), within)
    for (const p of ['a', 'b', 'c', 'd', 'e']) c.say(p)
    await vi.waitFor(
      () =>
        expect(c.sent).toContainEqual(
          expect.stringContaining('queue full (4 waiting), message not taken: send it again later.'),
        ),
      within,
    )
    expect(c.logs).toContain('queue full: a message was not taken')
    c.say('cancel')
    await vi.waitFor(
      () => expect(c.sent).toContainEqual(expect.stringContaining('turn 5 cancelled; the chat goes on.')),
      within,
    )
    await vi.waitFor(() => expect(agent.prompts).toEqual(['hold on', 'a', 'b', 'c', 'd']), within)
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.logs).toContain(`stopping (local signal); resume later with --resume ${GROUP}`)
    // A cancel that killed a turn is answered by the turn's notice only.
    expect(c.sent.filter((t) => t.includes('nothing is running.'))).toEqual([])
    const outcomes = c.audit()
    expect(outcomes.slice(0, 6)).toEqual([
      'prompt: queued (position 1)',
      'prompt: queued (position 1)',
      'prompt: queued (position 2)',
      'prompt: queued (position 3)',
      'prompt: queued (position 4)',
      'prompt: refused: queue full',
    ])
    expect(outcomes).toContain('control: turn cancelled')
    expect(outcomes).toContain('turn: cancelled')
  })

  it('ignores a message from someone who is not an operator', async () => {
    const c = start({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'ready')).toBe(true), within)
    c.say('run this', { from: STRANGER })
    await vi.waitFor(() => expect(c.events).toContainEqual({ type: 'ignored', reason: 'not-operator' }), within)
    expect(c.logs).toContain('ignored a message: not-operator')
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    // A resumed chat does not run its topic again, and a local stop does not leave the group.
    expect(agent.prompts).toEqual([])
    expect(c.quits()).toBe(0)
  })
})
