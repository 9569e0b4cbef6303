// What the chat loop does with each message on the events stream before the gate and after it: a
// sync copy of our own post waits for the send's timestamp (and a phone's message does not wait),
// rejections are logged except the quiet ones, e2e-col bodies count only as a whole chat-prompt,
// and the announcement names the turns an earlier process left running in this chat.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { EXIT_CODES } from '../exit-codes.ts'
import { agent } from './chat-loop-agent-fixture.ts'
import { cleanUp, fakeDaemon, GROUP, ME, OP, OTHER_GROUP, startChat, STRANGER } from './chat-loop-fixture.ts'
import { chatEnvelopeBody } from '../../test/harness.ts'
import { within } from '../../test/wait.ts'

vi.mock('../agent/turn-runner.ts', () => import('./chat-loop-agent-fixture.ts'))
afterEach(cleanUp)

describe('messages reaching the chat loop', () => {
  it('holds a sync copy of our own post until its send has a timestamp, then ignores it quietly', async () => {
    const daemon = fakeDaemon()
    daemon.flags.echo = true
    const release = daemon.hold('send')
    // Our own number is an operator: only the sent timestamp tells the copy from someone typing.
    const c = startChat({ resumed: true, operators: [OP, ME], daemon })
    await vi.waitFor(() => expect(c.yielded.some((m) => m.origin === 'sync')).toBe(true), within)
    release()
    await vi.waitFor(() => expect(c.events).toContainEqual({ type: 'ignored', reason: 'own-post' }), within)
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(agent.prompts).toEqual([])
    expect(c.logs.filter((l) => l.startsWith('ignored'))).toEqual([])
  })

  it('takes a phone’s control phrase while a send is still waiting for its answer', async () => {
    const daemon = fakeDaemon()
    const release = daemon.hold('send')
    const c = startChat({ resumed: true, daemon })
    await vi.waitFor(() => expect(c.sent).toHaveLength(1), within)
    c.say('status')
    await vi.waitFor(() => expect(c.audit()).toEqual(['control: status answered']), within)
    release()
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
  })

  it('logs a rejected message, except one for another group', async () => {
    const c = startChat({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'ready')).toBe(true), within)
    c.say('for the other chat', { groupId: OTHER_GROUP })
    c.say('run this', { from: STRANGER })
    await vi.waitFor(() => expect(c.events).toContainEqual({ type: 'ignored', reason: 'not-operator' }), within)
    expect(c.events).toContainEqual({ type: 'ignored', reason: 'other-group' })
    expect(c.logs.filter((l) => l.startsWith('ignored'))).toEqual(['ignored a message: not-operator'])
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(agent.prompts).toEqual([])
  })

  it('runs a whole chat-prompt envelope as its text, and ignores a broken e2e-col body', async () => {
    const c = startChat({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'ready')).toBe(true), within)
    c.say('e2e-col:v1:not-base64!!')
    await vi.waitFor(() => expect(c.events).toContainEqual({ type: 'ignored', reason: 'envelope-body' }), within)
    expect(c.logs).toContain('ignored an e2e-col body: not a valid e2e-col body')
    c.say(chatEnvelopeBody('chat-prompt', GROUP, 'from a sidecar'))
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('answer to from a sidecar'))).toBe(true), within)
    expect(agent.prompts).toEqual(['from a sidecar'])
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.audit()[0]).toBe('prompt: queued (position 1)')
  })

  it('names in the announcement the turns of this chat an earlier process left running and were killed', async () => {
    const c = startChat({
      leftovers: [
        { groupId: GROUP, turn: 3, pgid: 100, result: 'killed' },
        { groupId: OTHER_GROUP, turn: 7, pgid: 101, result: 'killed' },
        { groupId: GROUP, turn: 9, pgid: 102, result: 'gone' },
      ],
    })
    await vi.waitFor(() => expect(c.sent.length).toBeGreaterThan(0), within)
    const leftLines = (c.sent[0] ?? '').split('\n').filter((l) => l.includes('left running'))
    expect(leftLines).toEqual(['turn 3 was left running by an earlier e2e-col process that died; it is killed now.'])
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
  })
})
