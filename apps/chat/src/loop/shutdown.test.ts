import { describe, expect, it } from 'vitest'
import type { ConsoleOutput } from '../console/console-port.ts'
import { EXIT_CODES } from '../exit-codes.ts'
import type { ChatSignal, GroupMembership } from '../signal/port.ts'
import type { ChatEvent } from './chat-events.ts'
import { createInbox } from './inbox.ts'
import type { Queued } from './origin.ts'
import { RECEIPT_EMOJI } from './receipts.ts'
import { createShutdown } from './shutdown.ts'
import type { TurnWorker } from './turn-worker.ts'

const LOOP = '+15550000001'
const OPERATOR = '+15550000002'
const clean: GroupMembership = {
  isMember: true,
  members: [{ number: LOOP, uuid: null }],
  pendingMembers: [],
  requestingMembers: [],
}

function setup(
  o: {
    membership?: GroupMembership
    quitFails?: boolean
    reactFails?: boolean
    noConsole?: boolean
    reapFails?: boolean
  } = {},
) {
  const calls: string[] = []
  const out: ConsoleOutput[] = []
  const events: ChatEvent[] = []
  const logs: string[] = []
  const life = new AbortController()
  const inbox = createInbox(8)
  let running: Queued | undefined
  let reaped = false
  const worker = {
    get running() {
      return running === undefined ? undefined : { item: running }
    },
    settled: async () => {
      await new Promise((r) => setImmediate(r))
      if (o.reapFails === true) throw new Error('reap failed')
      reaped = life.signal.aborted
    },
  } as unknown as TurnWorker
  const signal = {
    react: async (_g: string, target: { timestamp: number }, emoji: string) => {
      calls.push(`react ${target.timestamp} ${emoji}`)
      if (o.reactFails === true) throw new Error('no')
    },
    groupMembership: async () => {
      calls.push('check')
      return o.membership ?? clean
    },
    sendGroup: async (_g: string, text: string) => {
      calls.push(`send ${text}`)
      return 1
    },
    quitGroup: async () => {
      calls.push('quit')
      if (o.quitFails === true) throw new Error('quit refused')
    },
  } as unknown as ChatSignal
  const shutdown = createShutdown({
    life,
    inbox,
    worker,
    signal,
    groupId: 'g',
    allowed: new Set([LOOP, OPERATOR]),
    console:
      o.noConsole === true ? undefined : { emit: (x) => void out.push(x), inputs: () => (async function* () {})() },
    observe: async (e) => void events.push(e),
    log: (l) => logs.push(l),
  })
  const item = (timestamp: number, receipt: Queued['receipt']): Queued => ({
    text: 't',
    author: OPERATOR,
    timestamp,
    origin: { kind: 'signal', author: OPERATOR, timestamp, device: 1 },
    receipt,
  })
  return {
    shutdown,
    calls,
    out,
    events,
    logs,
    life,
    inbox,
    item,
    setRunning: (q: Queued) => (running = q),
    reaped: () => reaped,
  }
}

describe('ending a chat', () => {
  it('aborts, waits for the turn to be reaped, cancels the running and waiting messages, tells consoles', async () => {
    const s = setup()
    s.setRunning(s.item(1, 'running'))
    s.inbox.offer(s.item(2, 'queued'))
    s.inbox.offer({
      text: 'c',
      author: 'console',
      timestamp: 0,
      origin: { kind: 'console', ref: 'r' },
      receipt: 'queued',
    } as Queued)
    await s.shutdown.end(EXIT_CODES.ok, 'bye now')
    expect(await s.shutdown.finished).toBe(EXIT_CODES.ok)
    expect(s.life.signal.aborted).toBe(true)
    expect(s.reaped()).toBe(true)
    expect(s.inbox.size).toBe(0)
    expect(s.calls).toEqual([`react 1 ${RECEIPT_EMOJI.cancelled}`, `react 2 ${RECEIPT_EMOJI.cancelled}`])
    expect(s.events).toEqual([
      { type: 'receipt', target: 1, state: 'cancelled' },
      { type: 'receipt', target: 2, state: 'cancelled' },
    ])
    expect(s.out).toEqual([
      { kind: 'chat-status', ref: 'r', state: 'cancelled' },
      { kind: 'chat-status', ref: undefined, state: 'info', text: 'the chat has ended' },
    ])
    expect(s.logs).toEqual(['bye now'])
  })

  it('leaves final receipts and messages without one alone, and reports no reaction that failed', async () => {
    const s = setup({ reactFails: true })
    s.setRunning(s.item(1, 'done'))
    s.inbox.offer(s.item(2, undefined))
    s.inbox.offer(s.item(3, 'queued'))
    await s.shutdown.end(EXIT_CODES.ok, undefined)
    expect(s.calls).toEqual([`react 3 ${RECEIPT_EMOJI.cancelled}`])
    expect(s.events).toEqual([])
    expect(s.logs).toEqual([])
  })

  it('ends a chat without a console the same way, a console line’s message cancelled too', async () => {
    const s = setup({ noConsole: true })
    const line = {
      text: 'c',
      author: 'console',
      timestamp: 0,
      origin: { kind: 'console', ref: 'r' },
      receipt: 'queued',
    }
    s.inbox.offer(line as Queued)
    s.inbox.offer(s.item(2, 'queued'))
    await s.shutdown.end(EXIT_CODES.ok, undefined)
    expect(await s.shutdown.finished).toBe(EXIT_CODES.ok)
    expect(line.receipt).toBe('cancelled')
    expect(s.calls).toEqual([`react 2 ${RECEIPT_EMOJI.cancelled}`])
    expect(s.logs).toEqual([])
  })

  it('logs a shutdown that broke half way, and still ends with the code asked for', async () => {
    const s = setup({ reapFails: true })
    await s.shutdown.end(EXIT_CODES.ok, undefined)
    expect(await s.shutdown.finished).toBe(EXIT_CODES.ok)
    expect(s.logs).toEqual(['shutdown incomplete: reap failed'])
  })

  it('touches no receipt when the daemon is lost', async () => {
    const s = setup()
    s.inbox.offer(s.item(2, 'queued'))
    await s.shutdown.end(EXIT_CODES.daemonLost, 'lost')
    expect(await s.shutdown.finished).toBe(EXIT_CODES.daemonLost)
    expect(s.calls).toEqual([])
  })

  it('says goodbye when the group is safe and leaves it; the first call decides the code', async () => {
    const s = setup()
    const first = s.shutdown.end(EXIT_CODES.ok, undefined, { leave: true })
    const second = s.shutdown.end(EXIT_CODES.daemonLost, 'later')
    expect(second).toBe(first)
    await first
    expect(await s.shutdown.finished).toBe(EXIT_CODES.ok)
    expect(s.calls).toEqual(['check', 'send stopped: the agent is killed and this chat is over. Bye.', 'quit'])
    expect(s.logs).toEqual(['left the group'])
  })

  it('leaves without a goodbye while a stranger is in the group, and logs a leave that failed', async () => {
    const s = setup({
      membership: { ...clean, pendingMembers: [{ number: '+15550000003', uuid: null }] },
      quitFails: true,
    })
    await s.shutdown.end(EXIT_CODES.ok, undefined, { leave: true })
    expect(s.calls).toEqual(['check', 'quit'])
    expect(s.logs).toEqual(['could not leave the group cleanly: quit refused'])
  })
})
