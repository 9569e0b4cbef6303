import { describe, expect, it } from 'vitest'
import type { ConsoleOutput } from '../console/console-port.ts'
import { ChatError } from '../errors.ts'
import { createRedactor } from '../redact/redactor.ts'
import type { ChatSignal } from '../signal/port.ts'
import type { ChatEvent } from './chat-events.ts'
import { createDaemonHealth } from '../signal/daemon-health.ts'
import { createLocalLog, maskPhone } from '../redact/local-log.ts'
import type { Queued } from './origin.ts'
import type { PostedFile, PostOptions, PostResult, Poster } from './poster.ts'
import { RECEIPT_EMOJI } from './receipts.ts'
import { createSpeaker } from './speaker.ts'

const SECRET = 'zz-known-env-secret-value-31337'
const redactor = createRedactor({ env: { DEPLOY_TOKEN: SECRET } })
const flush = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
}

function world(
  o: { result?: PostResult | Error; reactFails?: boolean; reactDown?: boolean; noConsole?: boolean } = {},
) {
  const posts: Array<{ text: string; file?: PostedFile; options?: PostOptions | undefined }> = []
  const reactions: Array<[string, { author: string; timestamp: number }, string]> = []
  const out: ConsoleOutput[] = []
  const events: ChatEvent[] = []
  const logs: string[] = []
  const errors: Array<[string, unknown]> = []
  const poster = {
    post: async (text: string, _abort: AbortSignal, options?: PostOptions) => {
      posts.push({ text, options })
      if (o.result instanceof Error) throw o.result
      return o.result ?? { kind: 'posted', total: 1 }
    },
    postFile: async (text: string, file: PostedFile, _abort: AbortSignal, options?: PostOptions) => {
      posts.push({ text, file, options })
      return o.result ?? { kind: 'posted', total: 1 }
    },
  } as unknown as Poster
  const signal = {
    react: async (group: string, target: { author: string; timestamp: number }, emoji: string) => {
      if (o.reactFails === true) throw new Error('react failed')
      if (o.reactDown === true) throw new ChatError('CHAT_DAEMON_UNAVAILABLE', 'down')
      reactions.push([group, target, emoji])
    },
  } as unknown as ChatSignal
  const speaker = createSpeaker({
    signal,
    groupId: 'g',
    health: createDaemonHealth({ budget: 1, baseMs: 1, maxMs: 1 }),
    redactor,
    poster,
    console:
      o.noConsole === true ? undefined : { emit: (x) => void out.push(x), inputs: () => (async function* () {})() },
    observe: async (e) => void events.push(e),
    life: new AbortController().signal,
    noticeStallMs: 1500,
    log: (l) => logs.push(l),
    onError: (what, err) => void errors.push([what, err]),
  })
  return { speaker, posts, reactions, out, events, logs, errors }
}

const phoneItem = (): Queued => ({
  text: 'p',
  author: '+15550000002',
  timestamp: 42,
  origin: { kind: 'signal', author: '+15550000002', timestamp: 42, device: 1 },
  receipt: undefined,
})
const consoleItem = (): Queued => ({
  text: 'p',
  author: 'console',
  timestamp: 0,
  origin: { kind: 'console', ref: 'r1' },
  receipt: undefined,
})

describe('the speaker', () => {
  it('says redacted text to the group and mirrors it to consoles', async () => {
    const w = world()
    const abort = new AbortController().signal
    expect(await w.speaker.say(`t ${SECRET}`, abort, 3, { lead: true })).toEqual({ kind: 'posted', total: 1 })
    expect(w.posts).toEqual([{ text: 't [REDACTED:env]', options: { lead: true } }])
    expect(w.out).toEqual([{ kind: 'chat-reply', text: 't [REDACTED:env]', turn: 3 }])
  })

  it('sends a file with a redacted caption; consoles get the caption', async () => {
    const w = world()
    const file = { name: 'f.txt', contentType: 'text/plain', data: new Uint8Array([1]) }
    await w.speaker.sendFile(`c ${SECRET}`, file, new AbortController().signal, { stallMs: 5 })
    expect(w.posts).toEqual([{ text: 'c [REDACTED:env]', file, options: { stallMs: 5 } }])
    expect(w.out).toEqual([{ kind: 'chat-reply', text: 'c [REDACTED:env]', turn: undefined }])
  })

  it('tells the group in the background, bounded in time, and logs a notice it dropped', async () => {
    const w = world({ result: { kind: 'stalled', posted: 0, total: 1, reason: 'stranger' } })
    w.speaker.tellGroup(`n ${SECRET}`)
    await flush()
    expect(w.posts).toEqual([{ text: 'n [REDACTED:env]', options: { stallMs: 1500 } }])
    expect(w.logs).toEqual(['a notice to the group was dropped after 2 s withheld (stranger)'])
    expect(w.out).toEqual([])
  })

  it('logs nothing for a notice that got through, and reports one whose post broke', async () => {
    const w = world()
    w.speaker.tellGroup('fine')
    await flush()
    expect(w.posts.map((p) => p.text)).toEqual(['fine'])
    expect(w.logs).toEqual([])
    const lost = new Error('daemon lost')
    const broken = world({ result: lost })
    broken.speaker.tellGroup('n')
    await flush()
    expect(broken.errors).toEqual([['post', lost]])
    expect(broken.logs).toEqual([])
  })

  it('answers a phone in the group and a console on its own line', async () => {
    const w = world()
    w.speaker.answer({ kind: 'signal', author: '+1', timestamp: 1, device: 1 }, `a ${SECRET}`)
    w.speaker.answer({ kind: 'console', ref: 'r9' }, `b ${SECRET}`)
    await flush()
    expect(w.posts.map((p) => p.text)).toEqual(['a [REDACTED:env]'])
    expect(w.out).toEqual([{ kind: 'chat-status', ref: 'r9', state: 'info', text: 'b [REDACTED:env]' }])
  })

  it('shows receipts as reactions on the phone message, and as statuses on a console line', async () => {
    const w = world()
    const phone = phoneItem()
    await w.speaker.setReceipt(phone, 'queued')
    await w.speaker.setReceipt(phone, 'running')
    expect(phone.receipt).toBe('running')
    expect(w.reactions).toEqual([
      ['g', { author: '+15550000002', timestamp: 42 }, RECEIPT_EMOJI.queued],
      ['g', { author: '+15550000002', timestamp: 42 }, RECEIPT_EMOJI.running],
    ])
    const line = consoleItem()
    await w.speaker.setReceipt(line, 'queued')
    expect(w.out).toEqual([{ kind: 'chat-status', ref: 'r1', state: 'queued' }])
    expect(w.events).toEqual([
      { type: 'receipt', target: 42, state: 'queued' },
      { type: 'receipt', target: 42, state: 'running' },
      { type: 'receipt', target: 'r1', state: 'queued' },
    ])
    await expect(w.speaker.setReceipt(line, 'done')).rejects.toMatchObject({ code: 'CHAT_RECEIPT_TRANSITION' })
  })

  it('without a console it still posts, answers and keeps receipts', async () => {
    const w = world({ noConsole: true })
    const abort = new AbortController().signal
    expect(await w.speaker.say('s', abort, 1)).toEqual({ kind: 'posted', total: 1 })
    const file = { name: 'f.txt', contentType: 'text/plain', data: new Uint8Array([1]) }
    expect(await w.speaker.sendFile('c', file, abort)).toEqual({ kind: 'posted', total: 1 })
    w.speaker.answer({ kind: 'console', ref: 'r9' }, 'to nobody')
    const line = consoleItem()
    await w.speaker.setReceipt(line, 'queued')
    await flush()
    expect(line.receipt).toBe('queued')
    expect(w.posts.map((p) => p.text)).toEqual(['s', 'c'])
    expect(w.events).toEqual([{ type: 'receipt', target: 'r1', state: 'queued' }])
    expect(w.errors).toEqual([])
  })

  it('reports a failed reaction instead of throwing, and reacts outside the receipt steps', async () => {
    const w = world({ reactFails: true })
    await w.speaker.setReceipt(phoneItem(), 'queued')
    expect(w.errors.map(([what]) => what)).toEqual(['reaction'])
    expect(w.events).toEqual([])
    const ok = world()
    await ok.speaker.react({ author: '+15550000002', timestamp: 7 }, 'failed')
    expect(ok.reactions).toEqual([['g', { author: '+15550000002', timestamp: 7 }, RECEIPT_EMOJI.failed]])
    expect(ok.events).toEqual([{ type: 'receipt', target: 7, state: 'failed' }])
  })
})

describe('reactions while the daemon is away', () => {
  it('are retried as sendReaction, and named so once the budget is spent', async () => {
    const w = world({ reactDown: true })
    await w.speaker.setReceipt(phoneItem(), 'queued')
    expect(w.errors).toEqual([
      [
        'reaction',
        expect.objectContaining({ message: 'signal-cli daemon not restored after 1 attempts (last: sendReaction)' }),
      ],
    ])
    await expect(w.speaker.react({ author: '+15550000002', timestamp: 7 }, 'failed')).rejects.toThrow(
      'signal-cli daemon not restored after 1 attempts (last: sendReaction)',
    )
    expect(w.events).toEqual([])
  })
})

describe('terminal log lines', () => {
  it('are redacted and shorten phone numbers', () => {
    const lines: string[] = []
    createLocalLog((l) => lines.push(l), redactor)(`from +15550000002 with ${SECRET}`)
    expect(lines).toEqual(['from +1555…02 with [REDACTED:env]'])
  })
  it('mask a short number entirely', () => {
    expect(maskPhone('+123456')).toBe('+…')
    expect(maskPhone('+1234567')).toBe('+1234…67')
  })
})
