// The delivery guarantee: a reply is in the group, or the operator is told it failed. Daemon errors
// withhold and retry, the receipt waits for the last body, a stalled reply is saved and reported ❌
// (after a restart too); long replies are posted whole, paced, and can be cancelled.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listChatStates } from '../src/state/chat-state.ts'
import {
  FAST_TIMING,
  LOOP,
  memoryConsole,
  OPERATOR,
  resumeIn,
  STRANGER,
  stopsCleanly,
  unmark,
  until,
  useWorld,
  type World,
} from './harness.ts'

const worlds = useWorld()

const chatStates = (w: World) => listChatStates(join(w.stateRoot, 'e2e-col'))
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1} of ${n}\n`).join('')
/** One body at a time after the first, `ms` apart. */
const paced = (ms: number) => ({ deps: { timing: { ...FAST_TIMING, paceBurst: 1, paceMs: ms } } })
const isLast = (text: string) => /^\((\d+)\/\1\)\n/.test(text)
/** The chunks of one reply the loop sent, in order, found by their `(n/m)` marks after `from`. */
function replyChunks(w: World, from = 0): string[] {
  return w.toy
    .sends()
    .slice(from)
    .filter((s) => s.account === LOOP && /^\(\d+\/\d+\)\n/.test(s.message))
    .map((s) => s.message)
}

describe('a daemon error while a reply is posted', () => {
  it('a send answering -32603 or a -5 rate limit withholds the rest and retries; ✅ only once the whole reply is in', async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic')
    await chat.replied('echo topic')
    chat.events.hooks.push((e) => {
      if (e.type !== 'posted') return
      if (e.text.startsWith('(1/'))
        world.toy.faults.failNextSendsWith(2, {
          code: -32603,
          message: 'Failed to send message: [429] Rate limit exceeded',
        })
      if (e.text.startsWith('(2/')) world.toy.faults.rateLimitNextSends(1, { retryAfterSeconds: 0, mode: 'all-failed' })
    })
    const ts = await world.say(groupId, 'lines 400')
    const last = await chat.events.next('posted', (e) => isLast(e.text))
    const done = await chat.events.next('receipt', (e) => e.target === ts && e.state === 'done')
    const events = chat.events.events
    expect(events.indexOf(done)).toBeGreaterThan(events.indexOf(last))
    const reasons = events.flatMap((e) => (e.type === 'withheld' ? [e.reason] : []))
    expect(reasons).toContain('daemon error -32603 on send')
    expect(reasons).toContain('daemon error -5 on send')
    const chunks = replyChunks(world)
    expect(chunks.map(unmark).join('')).toBe(lines(400))
    expect(chat.logs.some((l) => l.includes('daemon error -32603 on send (') && l.includes('withholding'))).toBe(true)
    await stopsCleanly(chat)
  })

  it('a -5 rate limit is waited out for at least the pause the daemon asks for', async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic')
    await chat.replied('echo topic')
    chat.events.hooks.push((e) => {
      if (e.type === 'posted' && e.text.startsWith('(1/'))
        world.toy.faults.rateLimitNextSends(1, { retryAfterSeconds: 1, mode: 'all-failed' })
    })
    const from = world.toy.sends().length
    const ts = await world.say(groupId, 'lines 400')
    await chat.events.next('receipt', (e) => e.target === ts && e.state === 'done')
    const [first, second] = replyChunks(world, from).map(
      (m) => world.toy.sends().find((s) => s.message === m)?.timestamp ?? 0,
    )
    // The test's backoff is 30 ms; only the daemon's retry-after explains a pause this long.
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(1000)
    await stopsCleanly(chat)
  })

  it('a membership check answering a JSON-RPC error withholds the reply until a check passes', async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic')
    await chat.replied('echo topic')
    chat.events.hooks.push(async (e) => {
      if (e.type === 'turn-ended' && e.turn === 2)
        await world.failNextCalls('listGroups', 3, { code: -1, message: 'Failed to list groups' })
    })
    const ts = await world.say(groupId, 'echo checked')
    await chat.replied('echo checked')
    await chat.events.next('receipt', (e) => e.target === ts && e.state === 'done')
    const withheld = chat.events.events.filter(
      (e) => e.type === 'withheld' && e.reason === 'daemon error -1 on listGroups',
    )
    expect(withheld).toHaveLength(3)
    await stopsCleanly(chat)
  })
})

describe('a reply that cannot be delivered in time', () => {
  it('is saved on disk and reported failed (❌) in the group as soon as the group is safe again', async () => {
    const browser = memoryConsole()
    const { world, chat, groupId } = await worlds.chat('echo topic', ['--delivery-timeout', '1'], {
      deps: { console: browser },
    })
    await chat.replied('echo topic')
    await world.setGroupRequests(groupId, { requesting: [STRANGER] })
    const ts = await world.say(groupId, 'lines 400')
    await chat.events.next('withheld', (e) => e.reason === 'stranger')
    // `status` from a console (the group is withheld too) tells the real state.
    browser.type('status', 's1')
    await until(() => browser.out.some((o) => o.kind === 'chat-status' && o.ref === 's1'), 10_000, 'the status answer')
    const status = browser.out.find((o) => o.kind === 'chat-status' && o.ref === 's1') as { text: string }
    expect(status.text).toMatch(
      /^status: turn 2 finished \(\d+ bytes of output\); its reply is held \(stranger\): 0 of \d+ part\(s\) posted/,
    )

    // A phone's status answer waits like any post, but only as long as the delivery timeout.
    await world.say(groupId, 'status')
    await until(
      () => chat.logs.some((l) => l.includes('a notice to the group was dropped after 1 s withheld (stranger)')),
      10_000,
      'the status notice to be dropped',
    )
    await until(() => (chatStates(world)[0]?.undelivered ?? []).length === 1, 10_000, 'the reply saved as undelivered')
    const saved = chatStates(world)[0]?.undelivered?.[0]
    expect(saved).toMatchObject({ turn: 2, posted: 0, target: { author: OPERATOR, timestamp: ts } })
    expect(readFileSync(saved?.file as string, 'utf8')).toBe(lines(400))
    expect(statSync(saved?.file as string).mode & 0o777).toBe(0o600)
    expect(world.toy.sends().filter((s) => s.account === LOOP && s.message.includes('could not be delivered'))).toEqual(
      [],
    )

    await world.setGroupRequests(groupId, {})
    const notice = await chat.events.next('posted', (e) =>
      e.text.startsWith('turn 2: the reply could not be delivered'),
    )
    expect(notice.text).toContain(saved?.file)
    await chat.events.next('receipt', (e) => e.target === ts && e.state === 'failed')
    expect(chat.events.events.some((e) => e.type === 'receipt' && e.target === ts && e.state === 'done')).toBe(false)
    expect(replyChunks(world)).toEqual([])
    expect(chatStates(world)[0]?.undelivered).toBeUndefined()
    expect(chat.events.posted().some((t) => t.startsWith('status:'))).toBe(false)
    // The chat goes on.
    await chat.ask('echo after')
    await stopsCleanly(chat)
  })

  it('a reply held when the chat stops is kept on disk and reported failed at the next --resume', async () => {
    const { world, chat: first, groupId } = await worlds.chat('echo topic')
    await first.replied('echo topic')
    await world.setGroupRequests(groupId, { pending: [STRANGER] })
    const ts = await world.say(groupId, 'echo never shown')
    await first.events.next('withheld', (e) => e.reason === 'stranger')
    await stopsCleanly(first)
    const saved = chatStates(world)[0]?.undelivered?.[0]
    expect(saved).toMatchObject({ turn: 2, target: { author: OPERATOR, timestamp: ts } })
    expect(readFileSync(saved?.file as string, 'utf8')).toContain('prompt=echo never shown')

    await world.setGroupRequests(groupId, {})
    const second = resumeIn(world, groupId)
    await second.ready
    await second.events.next(
      'posted',
      (e) => e.text.startsWith('turn 2: the reply could not be delivered') && e.text.includes('the chat stopped'),
    )
    await second.events.next('receipt', (e) => e.target === ts && e.state === 'failed')
    expect(chatStates(world)[0]?.undelivered).toBeUndefined()
    expect(existsSync(saved?.file as string)).toBe(true)
    await stopsCleanly(second)
  })
})

describe('long replies', () => {
  it('are posted whole, not cut at 16 KiB, and the first body says how many follow', async () => {
    const { world, chat } = await worlds.chat('lines 2000')
    const last = await chat.events.next('posted', (e) => isLast(e.text), 30_000)
    const chunks = replyChunks(world)
    const total = Number(/^\(\d+\/(\d+)\)/.exec(last.text)?.[1])
    expect(new TextEncoder().encode(lines(2000)).length).toBeGreaterThan(16 * 1024)
    expect(chunks).toHaveLength(total)
    expect(chunks[0]?.startsWith(`(1/${total})\n${total - 1} more part(s) follow; send cancel to stop them.\n`)).toBe(
      true,
    )
    expect(chunks.map(unmark).join('')).toBe(lines(2000))
    for (const c of chunks) expect(new TextEncoder().encode(c).length).toBeLessThanOrEqual(2000)
    // Replies are for people: unlike the sidecar's machine traffic they stay urgent (a push), on a
    // daemon (the toy's 0.14.6) that would take noUrgent.
    expect(world.toy.sends().filter((s) => s.account === LOOP && !s.urgent)).toEqual([])
    await stopsCleanly(chat)
  })

  it('beyond the memory bound, the whole output is saved to a file and the reply says where and how to get it', async () => {
    const { world, chat } = await worlds.chat('lines 2000', ['--max-reply-bytes', '4000'])
    await chat.events.next('posted', (e) => isLast(e.text), 30_000)
    const posted = replyChunks(world).map(unmark).join('')
    const file = /saved on testbox in (\S+);/.exec(posted)?.[1] as string
    expect(file).toMatch(/\.turn-1\.output\.txt$/)
    expect(readFileSync(file, 'utf8')).toBe(lines(2000))
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(posted.startsWith('line 1 of 2000\n')).toBe(true)
    expect(posted).toContain('send "output" to get it here as a file')
    await stopsCleanly(chat)
  })

  it('are paced after the first bodies, and `status` meanwhile says how far the post is', async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic', [], paced(400))
    await chat.replied('echo topic')
    const from = world.toy.sends().length
    // The loop awaits its observer: asking for status while the first part's event is handled
    // pins the reply at exactly one part posted.
    let status = ''
    chat.events.hooks.push(async (e) => {
      if (e.type !== 'posted' || !e.text.startsWith('(1/')) return
      await world.say(groupId, 'status')
      status = (await chat.events.next('posted', (p) => p.text.startsWith('status:'))).text
    })
    await world.say(groupId, 'lines 300')
    const first = await chat.events.next('posted', (e) => e.text.startsWith('(1/'))
    const total = Number(/^\(1\/(\d+)\)/.exec(first.text)?.[1])
    expect(total).toBeGreaterThanOrEqual(3)
    await until(() => status !== '', 10_000, 'the status answer')
    expect(status).toMatch(
      new RegExp(
        `^status: turn 2 finished \\(\\d+ bytes of output\\); posting its reply: 1 of ${total} part\\(s\\) posted`,
      ),
    )
    await chat.events.next('posted', (e) => e.text.startsWith(`(${total}/${total})`))
    const sends = replyChunks(world, from).map((message) => world.toy.sends().find((s) => s.message === message))
    for (let i = 1; i < sends.length; i++)
      expect((sends[i]?.timestamp ?? 0) - (sends[i - 1]?.timestamp ?? 0)).toBeGreaterThanOrEqual(400)
    await stopsCleanly(chat)
  })

  it('cancel while a reply is posted stops the rest of it; the chat goes on', async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic', [], paced(300))
    await chat.replied('echo topic')
    // Cancelled while the second part's event is handled (the loop awaits its observer): exactly two are out.
    chat.events.hooks.push(async (e) => {
      if (e.type !== 'posted' || !e.text.startsWith('(2/')) return
      await world.say(groupId, 'cancel')
      await until(
        () => chat.logs.some((l) => l.includes("cancel: stopping the rest of turn 2's reply")),
        10_000,
        'the cancel to reach the loop',
      )
    })
    const ts = await world.say(groupId, 'lines 2000')
    const notice = await chat.events.next(
      'posted',
      (e) => e.text.startsWith('turn 2: the rest of the reply is cancelled'),
      30_000,
    )
    const [, posted, total] = /\((\d+) of (\d+) part\(s\) posted\)/.exec(notice.text) ?? []
    expect(Number(posted)).toBe(2)
    expect(Number(total)).toBeGreaterThan(10)
    await chat.events.next('receipt', (e) => e.target === ts && e.state === 'cancelled')
    expect(replyChunks(world)).toHaveLength(Number(posted))
    await chat.ask('echo next')
    expect(replyChunks(world)).toHaveLength(Number(posted))
    await stopsCleanly(chat)
  })
})
