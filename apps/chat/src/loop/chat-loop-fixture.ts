/**
 * The running chat of the chat loop's tests: `runChatLoop` over an in-memory daemon (sends, reactions,
 * membership and the events stream, each of which a test may hold or replace) and the config parsed
 * from a command line, as `e2e-col chat` would; consoles are the harness's `memoryConsole`. The agent is
 * `chat-loop-agent-fixture.ts`, which each test file mocks `agent/turn-runner.ts` with.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../config.ts'
import type { ConsolePort } from '../console/console-port.ts'
import type { ExitCode } from '../exit-codes.ts'
import { createRedactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import type { ChatSignal, GroupMembership, InboundMessage } from '../signal/port.ts'
import { chatStem, type ChatState } from '../state/chat-state.ts'
import type { LeftoverTurn } from '../state/leftover-turn.ts'
import { agent } from './chat-loop-agent-fixture.ts'
import { DEFAULT_TIMING, runChatLoop, type ChatEvent } from './chat-loop.ts'
import { createDaemonHealth } from '../signal/daemon-health.ts'

export const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
export const OTHER_GROUP = 'QnBpK0VmUFdtc3hpb21MZTlOeDJYRjlIT0U0ODNwNmk='
export const ME = '+15550000001'
export const OP = '+15550000002'
export const STRANGER = '+15550000009'
export const SESSION = '00000000-0000-4000-8000-000000000001'

/** Daemon calls a test can hold until it releases them. */
type Holdable = 'send' | 'membership'

export type FakeDaemon = ReturnType<typeof fakeDaemon>

/** An in-memory signal-cli daemon with one group, GROUP, of ME and OP (and STRANGER when `flags.stranger`). */
export function fakeDaemon() {
  const sent: string[] = []
  const reactions: string[] = []
  const yielded: InboundMessage[] = []
  const flags = { stranger: false, echo: false }
  const holds: Partial<Record<Holdable, Promise<void>>> = {}
  const queue: InboundMessage[] = []
  let wakeReader: (() => void) | undefined
  let quits = 0
  let ts = 1_000_000
  let sentAt = 500

  const deliver = (m: InboundMessage) => {
    queue.push(m)
    wakeReader?.()
  }
  const message = (body: string, o: { from?: string; groupId?: string; sync?: boolean; timestamp?: number }) =>
    ({
      type: 'message',
      groupId: o.groupId ?? GROUP,
      body,
      origin: o.sync === true ? 'sync' : 'data',
      timestamp: o.timestamp ?? sentAt++,
      sourceNumber: o.from ?? OP,
      sourceUuid: undefined,
      sourceDevice: 1,
      account: undefined,
    }) satisfies InboundMessage

  const signal: ChatSignal = {
    check: async () => {},
    listAccounts: async () => undefined,
    createGroup: async () => GROUP,
    acceptGroup: async () => {},
    sendGroup: async (_g, text) => {
      const timestamp = ts++
      sent.push(text)
      // Our own number typing on a linked device: the daemon's sync copy can come before the send's answer.
      if (flags.echo) deliver(message(text, { from: ME, sync: true, timestamp }))
      await holds.send
      return timestamp
    },
    react: async (_g, _t, emoji) => void reactions.push(emoji),
    groupMembership: async (): Promise<GroupMembership> => {
      await holds.membership
      const members = [ME, OP, ...(flags.stranger ? [STRANGER] : [])]
      return {
        isMember: true,
        members: members.map((number) => ({ number, uuid: null })),
        pendingMembers: [],
        requestingMembers: [],
      }
    },
    quitGroup: async () => void quits++,
    openEvents: async (abort) => ({
      async *[Symbol.asyncIterator]() {
        while (!abort.aborted) {
          const next = queue.shift()
          if (next !== undefined) {
            yielded.push(next)
            yield next
            continue
          }
          await new Promise<void>((resolve) => {
            wakeReader = resolve
            abort.addEventListener('abort', () => resolve(), { once: true })
          })
        }
      },
    }),
    close: async () => {},
  }

  return {
    signal,
    sent,
    reactions,
    yielded,
    flags,
    quits: () => quits,
    /** A message from `from` (an operator by default) in GROUP, or in `groupId`. */
    say: (body: string, o: { from?: string; groupId?: string } = {}) => deliver(message(body, o)),
    /** Holds every call of `kind` until the returned function is called. */
    hold(kind: Holdable): () => void {
      let release: (() => void) | undefined
      holds[kind] = new Promise<void>((resolve) => (release = resolve))
      return () => {
        delete holds[kind]
        release?.()
      }
    },
  }
}

export interface StartOptions {
  /** A chat resumed after turn 4: its topic is not run again. */
  resumed?: boolean
  operators?: readonly string[]
  deliveryTimeoutMs?: number
  console?: ConsolePort
  /** The local stop signal: given (default), given already aborted, or none at all. */
  stop?: 'signal' | 'aborted' | 'none'
  /** Runs for each event after it is recorded; `none`: the loop is given no observer. */
  observe?: ((event: ChatEvent) => void | Promise<void>) | 'none'
  leftovers?: readonly LeftoverTurn[]
  /** Runs before the chat starts, with the stem of the chat's files (what an earlier run left). */
  before?: (stem: string) => void
  daemon?: FakeDaemon
}

let dir: string | undefined

/** Removes the last chat's state folder and forgets the agent's prompts (call it in `afterEach`). */
export function cleanUp(): void {
  agent.prompts.length = 0
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  dir = undefined
}

export function startChat(o: StartOptions = {}) {
  dir = mkdtempSync(join(tmpdir(), 'e2e-col-chatloop-'))
  const d = o.daemon ?? fakeDaemon()
  const argv = ['chat', 'the topic', '--agent', 'command', '--agent-command', 'my-agent {prompt}']
  const flags = ['--host', 'box', '--inbox-capacity', '4', ...(o.operators ?? [OP]).flatMap((n) => ['--operator', n])]
  const inv = loadConfig([...argv, ...flags], { SIGNAL_CLI_URL: 'http://127.0.0.1:1', XDG_STATE_HOME: dir })
  if (inv.kind !== 'run') throw new Error('the test command line must be a run')
  const config = {
    ...inv.config,
    ...(o.deliveryTimeoutMs === undefined ? {} : { deliveryTimeoutMs: o.deliveryTimeoutMs }),
  }
  const root = config.stateRoot
  const stem = chatStem(root, GROUP)
  o.before?.(stem)
  const state: ChatState = {
    version: 1,
    groupId: GROUP,
    groupName: 'g',
    sessionId: SESSION,
    agent: 'command',
    topic: 'the topic',
    account: ME,
    turns: o.resumed === true ? 4 : 0,
    sessionStarted: o.resumed === true,
    createdAt: 'now',
  }
  const events: ChatEvent[] = []
  const logs: string[] = []
  const stop = new AbortController()
  if (o.stop === 'aborted') stop.abort()
  const hook = o.observe
  const chat = {
    signal: d.signal,
    account: ME,
    state,
    resumed: o.resumed === true,
    agentFlags: [],
    leftovers: o.leftovers ?? [],
  }
  let ended: ExitCode | undefined
  const code = runChatLoop(config, chat as unknown as PreparedChat, {
    redactor: createRedactor({ env: {} }),
    health: createDaemonHealth({ budget: 3, baseMs: 10, maxMs: 20 }),
    agentEnv: {},
    log: (l) => logs.push(l),
    timing: { ...DEFAULT_TIMING, paceMs: 0, membershipBaseMs: 1, membershipMaxMs: 5 },
    stop: o.stop === 'none' ? undefined : stop.signal,
    observe:
      hook === 'none'
        ? undefined
        : async (e) => {
            events.push(e)
            await hook?.(e)
          },
    console: o.console,
  })
  void code.then((c) => (ended = c))
  const audit = (): string[] =>
    readFileSync(`${stem}.audit.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; outcome: string })
      .map((l) => `${l.event}: ${l.outcome}`)
  return {
    ...d,
    code,
    /** The exit code once the chat has ended, else undefined. */
    ended: () => ended,
    events,
    logs,
    stop,
    state,
    root,
    stem,
    /** `event: outcome` of each audit line. */
    audit,
  }
}
