// The running chat wired from its parts, over an in-memory daemon and a faked agent: the
// announcement before any turn, the topic as the first turn, control phrases answered at once
// and audited, and an operator's stop ending the chat by leaving the group.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { RunTurnOptions, TurnResult } from '../agent/turn-runner.ts'
import type { ChatConfig } from '../config.ts'
import { EXIT_CODES } from '../exit-codes.ts'
import { createRedactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import type { ChatSignal, InboundMessage } from '../signal/port.ts'
import { chatStem, type ChatState } from '../state/chat-state.ts'
import { DEFAULT_TIMING, runChatLoop, type ChatEvent } from './chat-loop.ts'
import { createDaemonHealth } from './daemon-health.ts'
import { within } from '../../test/wait.ts'

const agent = vi.hoisted(() => ({ prompts: [] as string[] }))
vi.mock('../agent/turn-runner.ts', () => ({
  runTurn: async (options: RunTurnOptions): Promise<TurnResult> => {
    const prompt = options.argv.at(-1) ?? ''
    agent.prompts.push(prompt)
    // A prompt starting "hold" runs until it is cancelled, as a killed agent reports it.
    const cancelled =
      prompt.startsWith('hold') &&
      (await new Promise<boolean>((resolve) => options.signal?.addEventListener('abort', () => resolve(true))))
    return {
      outcome: cancelled ? 'cancelled' : 'ok',
      exitCode: 0,
      signal: null,
      stdout: `answer to ${prompt}`,
      droppedStdoutBytes: 0,
      unkeptBytes: 0,
      outputBytes: 10,
      tail: '',
      durationMs: 5,
    }
  },
}))

const auditOutcomes = (root: string): string[] =>
  readFileSync(`${chatStem(root, GROUP)}.audit.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => `${(JSON.parse(l) as { event: string }).event}: ${(JSON.parse(l) as { outcome: string }).outcome}`)

const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const ME = '+15550000001'
const OP = '+15550000002'
let dir: string | undefined
afterEach(() => {
  agent.prompts.length = 0
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

function fakeSignal() {
  const sent: string[] = []
  const reactions: string[] = []
  let quit = 0
  let ts = 1_000_000
  let push: ((m: InboundMessage) => void) | undefined
  const queue: InboundMessage[] = []
  const signal: ChatSignal = {
    check: async () => {},
    listAccounts: async () => undefined,
    createGroup: async () => GROUP,
    acceptGroup: async () => {},
    sendGroup: async (_g, message) => {
      sent.push(message)
      return ts++
    },
    react: async (_g, _t, emoji) => void reactions.push(emoji),
    groupMembership: async () => ({
      isMember: true,
      members: [
        { number: ME, uuid: null },
        { number: OP, uuid: null },
      ],
      pendingMembers: [],
      requestingMembers: [],
    }),
    quitGroup: async () => void quit++,
    openEvents: async (abort) => ({
      async *[Symbol.asyncIterator]() {
        while (!abort.aborted) {
          const next = queue.shift()
          if (next !== undefined) {
            yield next
            continue
          }
          await new Promise<void>((resolve) => {
            push = (m) => {
              queue.push(m)
              resolve()
            }
            abort.addEventListener('abort', () => resolve(), { once: true })
          })
        }
      },
    }),
    close: async () => {},
  }
  let sentAt = 500
  const say = (body: string, from = OP) => {
    const m: InboundMessage = {
      type: 'message',
      groupId: GROUP,
      body,
      origin: 'data',
      timestamp: sentAt++,
      sourceNumber: from,
      sourceUuid: undefined,
      sourceDevice: 1,
      account: undefined,
    }
    if (push !== undefined) push(m)
    else queue.push(m)
  }
  return { signal, sent, reactions, say, quits: () => quit }
}

function start(o: { resumed?: boolean } = {}) {
  dir = mkdtempSync(join(tmpdir(), 'e2e-col-chatloop-'))
  const d = fakeSignal()
  const state: ChatState = {
    version: 1,
    groupId: GROUP,
    groupName: 'g',
    sessionId: '00000000-0000-4000-8000-000000000001',
    agent: 'command',
    topic: 'the topic',
    account: ME,
    turns: o.resumed === true ? 4 : 0,
    sessionStarted: o.resumed === true,
    createdAt: 'now',
  }
  const config = {
    stateRoot: dir,
    host: 'box',
    agent: 'command',
    agentCommand: ['my-agent', '{prompt}'],
    allowTools: [],
    allTools: false,
    operators: [OP],
    inboxCapacity: 4,
    turnTimeoutMs: 60_000,
    maxReplyBytes: 100_000,
    maxAttachmentBytes: 100_000,
    deliveryTimeoutMs: 60_000,
  } as unknown as ChatConfig
  const events: ChatEvent[] = []
  const logs: string[] = []
  const stop = new AbortController()
  const code = runChatLoop(
    config,
    {
      signal: d.signal,
      account: ME,
      state,
      resumed: o.resumed === true,
      agentFlags: [],
      leftovers: [],
    } as unknown as PreparedChat,
    {
      redactor: createRedactor({ env: {} }),
      health: createDaemonHealth({ budget: 3, baseMs: 10, maxMs: 20 }),
      agentEnv: {},
      log: (l) => logs.push(l),
      timing: { ...DEFAULT_TIMING, paceMs: 0 },
      stop: stop.signal,
      observe: (e) => void events.push(e),
    },
  )
  const posted = () => events.flatMap((e) => (e.type === 'posted' ? [e.text] : []))
  return { ...d, code, events, logs, stop, state, posted, root: dir }
}

describe('the chat loop', () => {
  it('announces first, runs the topic as turn 1, answers status and cancel, and stops on an operator stop', async () => {
    const c = start()
    await vi.waitFor(() => expect(agent.prompts).toEqual(['the topic']), within)
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('answer to the topic'))).toBe(true), within)
    // The announcement is the first thing posted, before any reply.
    expect(c.events[0]).toMatchObject({ type: 'ready', groupId: GROUP })
    expect(c.sent[0]).toContain('box')
    expect(c.sent[0]).not.toContain('answer to')
    c.say('status')
    await vi.waitFor(
      () =>
        expect(c.sent.some((t) => t.includes('00000000-0000-4000-8000-000000000001') && t !== c.sent[0])).toBe(true),
      within,
    )
    c.say('cancel')
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('nothing is running.'))).toBe(true), within)
    c.say('next prompt')
    await vi.waitFor(() => expect(c.sent.some((t) => t.includes('answer to next prompt'))).toBe(true), within)
    expect(agent.prompts).toEqual(['the topic', 'next prompt'])
    expect(c.state.turns).toBe(2)
    c.say('stop')
    expect(await c.code).toBe(EXIT_CODES.ok)
    expect(c.quits()).toBe(1)
    expect(auditOutcomes(c.root)).toEqual([
      'turn: done',
      'control: status answered',
      'control: nothing to cancel',
      'prompt: queued (position 1)',
      'turn: done',
      'control: chat ended',
    ])
  })

  it('refuses a prompt when the queue is full, and cancel kills the running turn', async () => {
    const c = start({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'ready')).toBe(true), within)
    c.say('hold on')
    await vi.waitFor(() => expect(agent.prompts).toEqual(['hold on']), within)
    for (const p of ['a', 'b', 'c', 'd', 'e']) c.say(p)
    await vi.waitFor(
      () =>
        expect(c.sent).toContainEqual(
          expect.stringContaining('queue full (4 waiting), message not taken: send it again later.'),
        ),
      within,
    )
    expect(c.logs).toContain('queue full: a message was not taken')
    c.say('cancel')
    await vi.waitFor(
      () => expect(c.sent).toContainEqual(expect.stringContaining('turn 5 cancelled; the chat goes on.')),
      within,
    )
    await vi.waitFor(() => expect(agent.prompts).toEqual(['hold on', 'a', 'b', 'c', 'd']), within)
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    const outcomes = auditOutcomes(c.root)
    expect(outcomes.slice(0, 6)).toEqual([
      'prompt: queued (position 1)',
      'prompt: queued (position 1)',
      'prompt: queued (position 2)',
      'prompt: queued (position 3)',
      'prompt: queued (position 4)',
      'prompt: refused: queue full',
    ])
    expect(outcomes).toContain('control: turn cancelled')
    expect(outcomes).toContain('turn: cancelled')
  })

  it('ignores a message from someone who is not an operator', async () => {
    const c = start({ resumed: true })
    await vi.waitFor(() => expect(c.events.some((e) => e.type === 'ready')).toBe(true), within)
    c.say('run this', '+15550000009')
    await vi.waitFor(() => expect(c.events).toContainEqual({ type: 'ignored', reason: 'not-operator' }), within)
    expect(c.logs).toContain('ignored a message: not-operator')
    c.stop.abort()
    expect(await c.code).toBe(EXIT_CODES.ok)
    // A resumed chat does not run its topic again, and a local stop does not leave the group.
    expect(agent.prompts).toEqual([])
    expect(c.quits()).toBe(0)
  })
})
