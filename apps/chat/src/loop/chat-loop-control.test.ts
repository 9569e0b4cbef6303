// The chat loop's control phrases as the group sees them: `status` showing the running turn and
// the last membership check, `cancel` during a reply that is held back, and `output` sending a
// saved output as a file (or saying there is none), each audited.
import { writeFileSync } from 'node:fs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { EXIT_CODES } from '../exit-codes.ts'
import { agent } from './chat-loop-agent-fixture.ts'
import { cleanUp, startChat } from './chat-loop-fixture.ts'
import { within } from '../../test/wait.ts'

vi.mock('../agent/turn-runner.ts', () => import('./chat-loop-agent-fixture.ts'))
afterEach(cleanUp)

/** Under an hour, as formatDuration writes it (`45s`, `3m05s`): a time measured from now, not from 1970. */
const SHORT = String.raw`(\d+s|\d+m\d\ds)`

describe('control phrases in the chat loop', () => {
  it('status shows the running turn with its time, and the last membership check', async () => {
    const c = startChat({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    c.say('hold on')
    await vi.waitFor(() => expect(agent.prompts).toEqual(['hold on']), within)
    c.say('status')
    await vi.waitFor(() => expect(c.sent.some((t) => t.startsWith('status:'))).toBe(true), within)
    const status = c.sent.find((t) => t.startsWith('status:')) ?? ''
    expect(status).toMatch(new RegExp(`^status: turn 5 running for ${SHORT} \\(0 bytes of output so far\\)$`, 'm'))
    expect(status).toMatch(new RegExp(`^last membership check: ${SHORT} ago, ok$`, 'm'))
    expect(status).toContain('queue: 0/4')
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.audit()).toContain('control: status answered')
  })

  it('cancel while a reply is held back stops the rest of it, and says so in the audit log', async () => {
    const c = startChat({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    // A stranger joins: the reply is withheld, and the group is told nothing while they are in it.
    c.flags.stranger = true
    c.say('hello')
    await vi.waitFor(
      () => expect(c.events).toContainEqual({ type: 'withheld', reason: 'stranger', remaining: 1 }),
      within,
    )
    c.say('cancel')
    await vi.waitFor(() => expect(c.audit()).toContain('control: rest of the reply cancelled'), within)
    expect(c.audit()).not.toContain('control: turn cancelled')
    c.flags.stranger = false
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.sent.filter((t) => t.includes('answer to hello'))).toEqual([])
  })

  it('output sends the saved output as a file, and answers when a turn has none', async () => {
    const c = startChat({
      resumed: true,
      before: (stem) => writeFileSync(`${stem}.turn-2.output.txt`, 'saved text', { mode: 0o600 }),
    })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    c.say('output 3')
    await vi.waitFor(
      () => expect(c.sent).toContainEqual('turn 3 has no saved output: only a reply too long to post saves one.'),
      within,
    )
    c.say('output')
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted' && e.file !== undefined)).toBe(true), within)
    expect(c.events.find((e) => e.type === 'posted' && e.file !== undefined)).toStrictEqual({
      type: 'posted',
      text: 'turn 2: its whole output (redacted, 10 bytes) is attached.',
      timestamp: expect.any(Number),
      file: 'turn-2-output.txt',
    })
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    // Neither is a prompt for the agent.
    expect(agent.prompts).toEqual([])
    expect(c.audit()).toEqual(['control: no saved output', 'control: sending the output of turn 2 (10 bytes saved)'])
  })
})
