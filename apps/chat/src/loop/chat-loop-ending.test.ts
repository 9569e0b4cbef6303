// How the chat loop ends, and with which exit code: a local stop given before the start, a chat
// with no stop signal or observer, an account that is not linked, a daemon lost while posting the
// announcement or in the background, an observer that throws, an announcement withheld past the
// delivery timeout; and background failures logged only while the chat runs.
import { existsSync, writeFileSync } from 'node:fs'
import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChatError } from '../errors.ts'
import { EXIT_CODES } from '../exit-codes.ts'
import { RECEIPT_EMOJI } from './receipts.ts'
import { agent } from './chat-loop-agent-fixture.ts'
import { cleanUp, fakeDaemon, GROUP, startChat } from './chat-loop-fixture.ts'
import { within } from '../../test/wait.ts'

vi.mock('../agent/turn-runner.ts', () => import('./chat-loop-agent-fixture.ts'))
afterEach(cleanUp)

/** Waits (bounded) for the chat to end and returns its exit code. */
async function endsWith(c: ReturnType<typeof startChat>): Promise<number | undefined> {
  await vi.waitFor(() => expect(c.ended()).toBeDefined(), within)
  return c.ended()
}

describe('the chat loop ending', () => {
  it('ends at once on a stop signal aborted before it started, starting nothing', async () => {
    let raw = ''
    const c = startChat({
      stop: 'aborted',
      before: (stem) => {
        raw = `${stem}.turn-1.output.raw`
        writeFileSync(raw, 'left by a turn that never ended', { mode: 0o600 })
      },
    })
    expect(await endsWith(c)).toBe(EXIT_CODES.ok)
    expect(c.logs).toContain(`stopping (local signal); resume later with --resume ${GROUP}`)
    // The turn worker never started: it would have removed the raw spill first.
    expect(existsSync(raw)).toBe(true)
    expect(c.sent).toEqual([])
    expect(agent.prompts).toEqual([])
  })

  it('runs without a stop signal or an observer, and ends on an operator’s stop', async () => {
    const c = startChat({ stop: 'none', observe: 'none' })
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('answer to the topic'))).toBe(true), within)
    c.say('stop')
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.quits()).toBe(1)
  })

  it('leaves no listener on the stop signal once it has ended', async () => {
    const c = startChat({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'ready')).toBe(true), within)
    expect(getEventListeners(c.stop.signal, 'abort')).toHaveLength(1)
    c.say('stop')
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(getEventListeners(c.stop.signal, 'abort')).toHaveLength(0)
  })

  it('ends with the setup code when the account is not linked', async () => {
    const daemon = fakeDaemon()
    daemon.signal.openEvents = async () => {
      throw new ChatError('CHAT_NOT_LINKED', 'the account is not linked on this daemon')
    }
    const c = startChat({ resumed: true, daemon })
    expect(await endsWith(c)).toBe(EXIT_CODES.setup)
    expect(c.logs).toContain('the account is not linked on this daemon')
  })

  it('ends with the daemon-lost code when the daemon goes away while the announcement is posted', async () => {
    const daemon = fakeDaemon()
    daemon.signal.groupMembership = async () => {
      throw new ChatError('CHAT_DAEMON_UNAVAILABLE', 'connection refused')
    }
    const c = startChat({ daemon })
    expect(await endsWith(c)).toBe(EXIT_CODES.daemonLost)
    expect(c.logs).toContain('signal-cli daemon not restored after 3 attempts (last: listGroups)')
    expect(c.sent).toEqual([])
    expect(agent.prompts).toEqual([])
  })

  it('ends with the setup code when the observer throws on ready, posting nothing', async () => {
    const c = startChat({
      observe: (e) => {
        if (e.type === 'ready') throw new Error('the observer broke')
      },
    })
    expect(await endsWith(c)).toBe(EXIT_CODES.setup)
    expect(c.logs).toContain('the observer broke')
    expect(c.sent).toEqual([])
  })

  it('ends with the setup code when the announcement is withheld past the delivery timeout, running nothing', async () => {
    const daemon = fakeDaemon()
    daemon.flags.stranger = true
    const c = startChat({ daemon, deliveryTimeoutMs: 50 })
    expect(await endsWith(c)).toBe(EXIT_CODES.setup)
    expect(c.logs).toContain('could not post the announcement for 0s (stranger); nothing was run')
    expect(c.events).toContainEqual({ type: 'withheld', reason: 'stranger', remaining: 1 })
    expect(c.sent).toEqual([])
    expect(agent.prompts).toEqual([])
  })

  it('ends with the daemon-lost code when the daemon goes away under a reaction', async () => {
    const daemon = fakeDaemon()
    const c = startChat({ resumed: true, daemon })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    daemon.signal.react = async () => {
      throw new ChatError('CHAT_DAEMON_UNAVAILABLE', 'connection refused')
    }
    c.say('hello')
    expect(await endsWith(c)).toBe(EXIT_CODES.daemonLost)
    expect(c.logs).toContain('signal-cli daemon not restored after 3 attempts (last: sendReaction)')
    expect(c.logs.filter((l) => l.includes('reaction failed'))).toEqual([])
  })

  it('logs a failed reaction and goes on', async () => {
    const daemon = fakeDaemon()
    const react = daemon.signal.react
    daemon.signal.react = async (g, t, emoji) => {
      if (emoji === RECEIPT_EMOJI.queued) throw new ChatError('CHAT_RPC', 'rate limited')
      return react(g, t, emoji)
    }
    const c = startChat({ resumed: true, daemon })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    c.say('hello')
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('answer to hello'))).toBe(true), within)
    expect(c.logs).toContain('reaction failed: rate limited')
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
  })

  it('does not log a failure that comes after the chat has ended', async () => {
    const daemon = fakeDaemon()
    let fail: ((err: Error) => void) | undefined
    const react = daemon.signal.react
    daemon.signal.react = (g, t, emoji) =>
      emoji === RECEIPT_EMOJI.running ? new Promise((_resolve, reject) => (fail = reject)) : react(g, t, emoji)
    const c = startChat({ resumed: true, daemon })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'posted')).toBe(true), within)
    c.say('hello')
    await vi.waitFor(() => expect(fail).toBeDefined(), within)
    c.stop.abort()
    // The chat waits for the turn, which waits for its reaction: the failure lands after the end began.
    fail?.(new ChatError('CHAT_RPC', 'too late'))
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.logs.filter((l) => l.includes('failed'))).toEqual([])
  })
})
