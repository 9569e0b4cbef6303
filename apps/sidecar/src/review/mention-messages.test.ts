import { describe, expect, it, vi } from 'vitest'
import { createLogger } from '../ops/logger.ts'
import { createMentionMessages, MENTION_LIMITS, mentionText } from './mention-messages.ts'

const BOB = '+15550000002'
const CAROL = '+15550000003'
const comment = (numbers: string[], body = '@Bob look') => ({
  docId: '00000000-0000-4000-8000-000000000001',
  commentId: 'c1234567',
  numbers,
  quote: 'long hike',
  body,
})

function setup(send = vi.fn(async (_to: string, _text: string) => {})) {
  let now = 1_000_000
  const logged: string[] = []
  const logger = { ...createLogger('silent'), warn: (_o: object, msg: string) => void logged.push(msg) }
  const mentioned = createMentionMessages({
    send,
    titleOf: async () => 'Trip plan',
    now: () => now,
    logger: logger as ReturnType<typeof createLogger>,
  })
  return { mentioned, send, logged, later: (ms: number) => void (now += ms) }
}

describe('mention messages', () => {
  it('reads as the title, the quote and the body, on a few lines; never the document id', () => {
    const text = mentionText({ title: 'Trip plan', quote: 'long\n hike', body: '@Bob too long?' })
    expect(text).toBe('Mentioned you in “Trip plan”:\n“long hike”\n@Bob too long?')
    expect(mentionText({ title: 'Trip plan', quote: '', body: 'hi', agent: 'Claude' })).toBe(
      'Claude (an agent) mentioned you in “Trip plan”:\nhi',
    )
    const long = mentionText({ quote: 'q'.repeat(500), body: 'b'.repeat(5000) })
    expect(long.startsWith('Mentioned you in a document:')).toBe(true)
    expect([...long].length).toBeLessThanOrEqual(40 + MENTION_LIMITS.quoteChars + MENTION_LIMITS.bodyChars)
    expect(long).toContain('…')
  })

  it('sends each mentioned person one message, and says how many', async () => {
    const { mentioned, send } = setup()
    expect(await mentioned(comment([BOB, CAROL]))).toBe(2)
    expect(send.mock.calls.map(([to]) => to)).toEqual([BOB, CAROL])
    expect(send.mock.calls[0]?.[1]).toContain('“Trip plan”')
    expect(send.mock.calls[0]?.[1]).not.toContain('00000000-0000-4000-8000-000000000001')
  })

  it('messages one person at most the per-person bound a minute, then again as the minute passes', async () => {
    const { mentioned, send, logged, later } = setup()
    for (let i = 0; i < MENTION_LIMITS.perPerson + 3; i += 1) await mentioned(comment([BOB]))
    expect(send).toHaveBeenCalledTimes(MENTION_LIMITS.perPerson)
    expect(logged).toContain('mention messages over the rate: not sent')
    // Carol is not held back by Bob's bound.
    expect(await mentioned(comment([CAROL]))).toBe(1)
    later(60_000 / MENTION_LIMITS.perPerson)
    expect(await mentioned(comment([BOB]))).toBe(1)
  })

  it('sends at most the per-sidecar bound in all, however many people', async () => {
    const { mentioned, send } = setup()
    const people = Array.from({ length: 16 }, (_, i) => `+1555000${String(1000 + i)}`)
    let taken = 0
    for (let i = 0; i < 4; i += 1) taken += await mentioned(comment(people))
    expect(taken).toBe(MENTION_LIMITS.perSidecar)
    expect(send).toHaveBeenCalledTimes(MENTION_LIMITS.perSidecar)
  })

  it('a send that fails is logged, never thrown into the comment that asked for it', async () => {
    const failing = vi.fn(async () => {
      throw Object.assign(new Error('no network'), { code: 'SIGNAL_UNAVAILABLE' })
    })
    const { mentioned, logged } = setup(failing)
    expect(await mentioned(comment([BOB]))).toBe(1)
    await vi.waitFor(() => expect(logged).toContain('a mention message was not sent'))
  })
})
