import { describe, expect, it } from 'vitest'
import { ChatError } from '../errors.ts'
import { EXIT_CODES } from '../exit-codes.ts'
import type { ChatSignal, InboundMessage } from '../signal/port.ts'
import type { ChatEvent } from './chat-events.ts'
import { createDaemonHealth } from '../signal/daemon-health.ts'
import { readEvents } from './events-reader.ts'

const message = (body: string): InboundMessage =>
  ({ type: 'message', body, groupId: 'g', origin: 'data' }) as unknown as InboundMessage

/** Each open answers the next entry: messages to yield then end, or an error to throw. */
function streams(plan: Array<InboundMessage[] | Error | { fail: Error; after: InboundMessage[] }>) {
  let opened = 0
  const signal = {
    openEvents: async (abort: AbortSignal) => {
      const step = plan[opened++]
      // Past the plan: a stream that never opens, until the chat ends.
      if (step === undefined)
        return new Promise((_resolve, reject) =>
          abort.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        )
      if (step instanceof Error) throw step
      const list = Array.isArray(step) ? step : step.after
      return (async function* () {
        yield* list
        if (!Array.isArray(step)) throw step.fail
      })()
    },
  } as unknown as ChatSignal
  return { signal, opened: () => opened }
}

function run(plan: Parameters<typeof streams>[0], budget = 3, stopAfter?: number) {
  const s = streams(plan)
  const life = new AbortController()
  const got: string[] = []
  const errors: string[] = []
  const logs: string[] = []
  const events: ChatEvent[] = []
  const fatal: Array<[number, string]> = []
  const health = createDaemonHealth({ budget, baseMs: 1, maxMs: 2 })
  const done = readEvents({
    signal: s.signal,
    health,
    life: life.signal,
    observe: async (e) => void events.push(e),
    log: (l) => logs.push(l),
    onMessage: async (m) => {
      got.push(m.body)
      if (m.body === 'bad') throw new Error('handler broke')
      if (stopAfter !== undefined && got.length >= stopAfter) life.abort()
    },
    onError: (what, err) => void errors.push(`${what}: ${(err as Error).message}`),
    onFatal: (code, why) => {
      fatal.push([code, why])
      life.abort()
    },
  })
  return { done, got, errors, logs, events, fatal, life, health, opened: s.opened }
}

const down = () => new ChatError('CHAT_DAEMON_UNAVAILABLE', 'down')

describe('the events reader', () => {
  it('hands on every message in order, a broken handler included, and reconnects when a stream ends', async () => {
    const r = run([[message('a'), message('bad')], [message('c')]], 3, 3)
    await r.done
    expect(r.got).toEqual(['a', 'bad', 'c'])
    expect(r.errors).toEqual(['message handling: handler broke'])
    expect(r.events).toEqual([{ type: 'events-connected' }, { type: 'events-connected' }])
    expect(r.logs).toEqual([
      expect.stringMatching(/^lost the events stream \(events stream ended\); reconnecting in 0s$/),
    ])
    expect(r.fatal).toEqual([])
  })

  it('names what broke the stream, and a success resets the retry count', async () => {
    const r = run([{ fail: new Error('socket hang up'), after: [message('a')] }, [message('b')]], 1, 2)
    await r.done
    expect(r.got).toEqual(['a', 'b'])
    expect(r.logs[0]).toMatch(/^lost the events stream \(socket hang up\); reconnecting in/)
    expect(r.health.consecutiveFailures).toBe(0)
  })

  it('ends the chat with exit 1 for an account that is not linked', async () => {
    const r = run([new ChatError('CHAT_NOT_LINKED', 'not linked')])
    await r.done
    expect(r.fatal).toEqual([[EXIT_CODES.setup, 'not linked']])
    expect(r.opened()).toBe(1)
  })

  it('ends nothing once the chat has ended, whatever the stream says then', async () => {
    const r = run([new ChatError('CHAT_NOT_LINKED', 'not linked')])
    r.life.abort()
    await r.done
    expect(r.fatal).toEqual([])
    expect(r.logs).toEqual([])
    expect(r.health.consecutiveFailures).toBe(0)
  })

  it('ends the chat with exit 4 once the retry budget is spent', async () => {
    const r = run([down(), down(), down()], 2)
    await r.done
    expect(r.fatal).toEqual([[EXIT_CODES.daemonLost, 'signal-cli daemon not restored after 2 attempts (last: down)']])
    expect(r.opened()).toBe(3)
  })

  it('stops at once when the chat ends, without counting a failure', async () => {
    const r = run([])
    r.life.abort()
    await r.done
    expect(r.opened()).toBe(1)
    expect(r.health.consecutiveFailures).toBe(0)
    expect(r.logs).toEqual([])
    const s = run([[message('x')]], 3, 1)
    await s.done
    expect(s.health.consecutiveFailures).toBe(0)
    expect(s.logs).toEqual([])
  })
})
