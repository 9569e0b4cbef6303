import { describe, expect, it } from 'vitest'
import { chatEnvelopeBody, memoryConsole, stopsCleanly, until, useWorld } from './harness.ts'

const worlds = useWorld()

describe('browser console', () => {
  it('a console prompt drives a turn through the same queue and gets chat-status receipts and a chat-reply', async () => {
    const browser = memoryConsole()
    const { world, chat, groupId, sessionId } = await worlds.chat('echo topic', [], { deps: { console: browser } })
    await chat.turnEnded(1)

    browser.type('echo from the browser', 'm1')
    await chat.events.next('receipt', (e) => e.target === 'm1' && e.state === 'done')
    await until(() =>
      browser.out.some((o) => o.kind === 'chat-reply' && o.text.includes('prompt=echo from the browser')),
    )
    expect(
      browser.out.filter((o) => o.kind === 'chat-status' && o.ref === 'm1').map((o) => (o as { state: string }).state),
    ).toEqual(['queued', 'running', 'done'])
    expect(browser.out).toContainEqual({
      kind: 'chat-prompt',
      text: 'echo from the browser',
      from: 'console',
      ref: 'm1',
    })
    // Phones see the console's prompt and the reply too.
    await chat.events.next('posted', (e) => e.text === '[console] echo from the browser')
    await chat.replied('echo from the browser')
    expect(world.agentRuns().map((r) => r.sessionId)).toEqual([sessionId, sessionId])

    // A phone prompt is lifted for the console, so it shows the whole conversation.
    await world.say(groupId, 'echo from the phone')
    await until(() =>
      browser.out.some((o) => o.kind === 'chat-prompt' && o.from === 'phone' && o.text === 'echo from the phone'),
    )

    browser.type('status', 'm2')
    await until(() =>
      browser.out.some(
        (o) => o.kind === 'chat-status' && o.ref === 'm2' && o.state === 'info' && (o.text ?? '').includes(sessionId),
      ),
    )
    browser.type('stop', 'm3')
    expect(await chat.exit).toBe(0)
  })
})

describe('e2e-col bodies in the chat group', () => {
  it('runs a chat-prompt envelope an operator’s sidecar posted, and never runs other envelope bodies', async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic')
    await chat.turnEnded(1)
    const body = (kind: 'chat-prompt' | 'update', text: string) => chatEnvelopeBody(kind, groupId, text)
    await world.say(groupId, body('update', 'echo must not run'))
    await chat.events.next('ignored', (e) => e.reason === 'envelope-body')
    await world.say(groupId, 'e2e-col:v1:not-base64!!')
    await until(
      () => chat.events.events.filter((e) => e.type === 'ignored' && e.reason === 'envelope-body').length === 2,
    )
    await world.say(groupId, body('chat-prompt', 'echo from a sidecar'))
    await chat.replied('echo from a sidecar')
    expect(world.agentRuns().map((r) => r.prompt)).toEqual(['echo topic', 'echo from a sidecar'])
    await stopsCleanly(chat)
  })
})
