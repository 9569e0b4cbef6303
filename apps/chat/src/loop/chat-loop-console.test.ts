// The chat loop with a browser console attached: console lines take the same path as phone
// messages, prompts from either side are mirrored to the consoles (and a console's to the group),
// a console is answered on its own line, and a console that breaks is logged while the chat goes on.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { EXIT_CODES } from '../exit-codes.ts'
import { agent } from './chat-loop-agent-fixture.ts'
import { cleanUp, fakeDaemon, startChat } from './chat-loop-fixture.ts'
import { memoryConsole } from '../../test/harness.ts'
import { within } from '../../test/wait.ts'

vi.mock('../agent/turn-runner.ts', () => import('./chat-loop-agent-fixture.ts'))
afterEach(cleanUp)

describe('the chat loop with a console', () => {
  it('mirrors prompts to the consoles, a console’s prompt to the group, and runs both as turns', async () => {
    const browser = memoryConsole()
    const c = startChat({ resumed: true, console: browser })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    browser.type('from the browser', 'm1')
    await vi.waitFor(() => expect(agent.prompts).toEqual(['from the browser']), within)
    expect(browser.out).toContainEqual({ kind: 'chat-prompt', text: 'from the browser', from: 'console', ref: 'm1' })
    await vi.waitFor(() => expect(c.sent).toContainEqual('[console] from the browser'), within)
    c.say('from the phone')
    await vi.waitFor(() => expect(agent.prompts).toEqual(['from the browser', 'from the phone']), within)
    const phone = c.yielded.at(-1)
    expect(browser.out).toContainEqual({
      kind: 'chat-prompt',
      text: 'from the phone',
      from: 'phone',
      ref: String(phone?.timestamp),
    })
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    // The group saw the phone's prompt itself: it is not posted again.
    expect(c.sent.filter((t) => t.startsWith('[console]'))).toEqual(['[console] from the browser'])
  })

  it('answers a console’s status on its line, before any membership check has been made', async () => {
    const daemon = fakeDaemon()
    const release = daemon.hold('membership')
    const browser = memoryConsole()
    const c = startChat({ resumed: true, console: browser, daemon })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'ready')).toBe(true), within)
    browser.type('status', 's1')
    await vi.waitFor(
      () => expect(browser.out.some((o) => o.kind === 'chat-status' && o.ref === 's1')).toBe(true),
      within,
    )
    const answer = browser.out.find((o) => o.kind === 'chat-status' && o.ref === 's1')
    expect(answer).toMatchObject({ state: 'info', text: expect.stringContaining('last membership check: not yet') })
    expect(answer).toMatchObject({ text: expect.stringContaining('status: idle') })
    release()
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    // Only the announcement reached the group: a console's answer is not posted.
    expect(c.sent).toHaveLength(1)
  })

  it('refuses a console’s prompt when the queue is full, on that console only', async () => {
    const browser = memoryConsole()
    const c = startChat({ resumed: true, console: browser })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    c.say('hold on')
    await vi.waitFor(() => expect(agent.prompts).toEqual(['hold on']), within)
    for (const n of [1, 2, 3, 4, 5]) browser.type(`prompt ${n}`, `p${n}`)
    await vi.waitFor(
      () => expect(browser.out.some((o) => o.kind === 'chat-status' && o.ref === 'p5')).toBe(true),
      within,
    )
    expect(browser.out.filter((o) => o.kind === 'chat-status' && o.ref === 'p5')).toEqual([
      { kind: 'chat-status', ref: 'p5', state: 'rejected', text: 'queue full (4 waiting), message not taken' },
    ])
    expect(c.logs).toContain('queue full: a message was not taken')
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.sent.filter((t) => t.includes('queue full'))).toEqual([])
    expect(c.sent).not.toContainEqual('[console] prompt 5')
  })

  it('logs a console line that fails, and takes the next one', async () => {
    const browser = memoryConsole()
    const c = startChat({
      resumed: true,
      console: browser,
      observe: (e) => {
        if (e.type === 'receipt' && e.target === 'bad') throw new Error('the observer refused')
      },
    })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    browser.type('first', 'bad')
    await vi.waitFor(() => expect(c.logs).toContain('console input failed: the observer refused'), within)
    browser.type('second', 'good')
    await vi.waitFor(() => expect(agent.prompts).toContain('second'), within)
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
  })

  it('logs a console whose inputs break, and the chat goes on', async () => {
    const browser = memoryConsole()
    // The inputs break before their first line.
    browser.inputs = () => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('the console link broke')) }),
    })
    const c = startChat({ resumed: true, console: browser })
    await vi.waitFor(() => expect(c.logs).toContain('console failed: the console link broke'), within)
    c.say('from the phone')
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('answer to from the phone'))).toBe(true), within)
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
  })
})
