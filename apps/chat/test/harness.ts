/**
 * Runs `e2e-col chat` in-process against a real toy signal-cli daemon over HTTP, with the fake agent.
 * The operator is another account of the same multi-account toy: posting as the operator is a real
 * `send` rpc that the toy delivers on the loop's events stream.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { encodeBody, encodeEnvelope } from '@e2e-col/protocol'
import { createHttpSignalBackend, type SignalMessage } from '@e2e-col/signal-cli'
import { afterEach, expect } from 'vitest'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { runChat, type RunChatDeps } from '../src/chat.ts'
import { loadConfig, type ChatConfig } from '../src/config.ts'
import type { ChatEvent } from '../src/loop/chat-loop.ts'
import type { ExitCode } from '../src/exit-codes.ts'
import type { ChatSignal } from '../src/signal/port.ts'
import { createChatSignal } from '../src/signal/chat-signal.ts'
import type { ConsoleOutput, ConsolePort } from '../src/console/console-port.ts'
import { createInputQueue } from '../src/console/input-queue.ts'
import { chatIdForGroup } from '../src/console/chat-envelopes.ts'

/** An in-memory console: what a sidecar connection would carry as chat-* envelopes. */
export function memoryConsole(): ConsolePort & { type(text: string, ref: string): void; out: ConsoleOutput[] } {
  const queue = createInputQueue()
  const out: ConsoleOutput[] = []
  return {
    out,
    type: (text, ref) => queue.push({ text, ref }),
    emit: (o) => void out.push(o),
    inputs: (signal) => queue.read(signal),
  }
}

/**
 * A whole (unchunked) e2e-col envelope posted to a chat group as a Signal body, as an operator's
 * sidecar posts a browser's `chat-prompt`: `kind` with `{"text": text}` for the group's chat.
 */
export function chatEnvelopeBody(kind: 'chat-prompt' | 'update', groupId: string, text: string): string {
  return encodeBody(
    encodeEnvelope({
      kind,
      flags: 0,
      docId: chatIdForGroup(groupId),
      senderId: '0b7e4a52-4c1d-4a9e-8f41-6a2d1c3b4e5f',
      messageId: 'b'.repeat(32),
      seq: 0,
      payload: new TextEncoder().encode(JSON.stringify({ text })),
    }),
  )
}

/** The body of a chunk without its `(n/m)` mark and, on the first, the lead line. */
export function unmark(chunk: string): string {
  return chunk
    .replace(/^\(1\/\d+\)\n\d+ more part\(s\) follow; send cancel to stop them\.\n/, '')
    .replace(/^\(\d+\/\d+\)\n/, '')
}

export const LOOP = '+15550000001'
export const OPERATOR = '+15550000002'
export const STRANGER = '+15550000003'
export const FAKE_AGENT = fileURLToPath(new URL('./fixtures/fake-agent.mjs', import.meta.url))
export const AGENT_SECRET = 'zz-known-env-secret-value-31337'

export const FAST_TIMING = {
  backoffBaseMs: 20,
  backoffMaxMs: 100,
  membershipBaseMs: 30,
  membershipMaxMs: 120,
  graceMs: 300,
  livenessMs: 60_000,
  paceBurst: 3,
  paceMs: 5,
}

/** A waitable log of everything the loop reported. */
export class EventLog {
  readonly events: ChatEvent[] = []
  private waiters: Array<{ test: (e: ChatEvent) => boolean; resolve: (e: ChatEvent) => void }> = []
  /** Awaited by the loop: hooks run before it goes on. */
  hooks: Array<(e: ChatEvent) => void | Promise<void>> = []
  readonly observe = async (e: ChatEvent): Promise<void> => {
    this.events.push(e)
    for (const hook of this.hooks) await hook(e)
    this.waiters = this.waiters.filter((w) => {
      if (!w.test(e)) return true
      w.resolve(e)
      return false
    })
  }
  /** Resolves with the first past or future event matching `test`. */
  next<T extends ChatEvent['type']>(
    type: T,
    test: (e: Extract<ChatEvent, { type: T }>) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<Extract<ChatEvent, { type: T }>> {
    const match = (e: ChatEvent): boolean => e.type === type && test(e as Extract<ChatEvent, { type: T }>)
    const seen = this.events.find(match)
    if (seen !== undefined) return Promise.resolve(seen as Extract<ChatEvent, { type: T }>)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${type}; saw ${JSON.stringify(this.events.map((x) => x.type))}`)),
        timeoutMs,
      )
      this.waiters.push({
        test: match,
        resolve: (e) => {
          clearTimeout(timer)
          resolve(e as Extract<ChatEvent, { type: T }>)
        },
      })
    })
  }
  posted(): string[] {
    return this.events.flatMap((e) => (e.type === 'posted' ? [e.text] : []))
  }
}

/** A test world: one toy daemon, a temp state dir, and helpers. */
export interface World {
  toy: ToySignal
  stateRoot: string
  agentLog: string
  rpc(account: string, method: string, params: Record<string, unknown>): Promise<unknown>
  /** Posts `message` to the group as `account` and returns its timestamp. */
  say(groupId: string, message: string, account?: string): Promise<number>
  /**
   * Delivers a group message to the loop's stream as if `source` sent it from `sourceDevice`
   * (`sync`: a copy of the loop's own number typed on another device). Resolves to its timestamp.
   */
  inject(
    groupId: string,
    message: string,
    from: { source: string; sourceDevice: number; sync?: boolean },
  ): Promise<number>
  /** The next `n` calls of `method` answer this JSON-RPC error. */
  failNextCalls(method: string, n: number, error: { code: number; message: string }): Promise<void>
  /** Sets the group's invited and requesting members as listGroups reports them. */
  setGroupRequests(groupId: string, requests: { pending?: string[]; requesting?: string[] }): Promise<void>
  agentRuns(): Array<{ sessionId: string; prompt: string; allow: string[] }>
  close(): Promise<void>
}

export async function createWorld(options: { singleAccount?: boolean } = {}): Promise<World> {
  const toy = await createToySignal(
    options.singleAccount === true
      ? { port: 0, singleAccount: LOOP, faults: true, keepAliveMs: 1000 }
      : { port: 0, accounts: [LOOP, OPERATOR, STRANGER], faults: true, keepAliveMs: 1000 },
  )
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-chat-'))
  const agentLog = join(dir, 'agent.log')
  let id = 1
  async function rpc(account: string, method: string, params: Record<string, unknown>): Promise<unknown> {
    const res = await fetch(`${toy.url}/api/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method, params: { account, ...params }, id: id++ }),
    })
    const json = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (json.error !== undefined) throw new Error(`${method}: ${json.error.message}`)
    return json.result
  }
  async function admin(name: string, body: unknown): Promise<unknown> {
    const res = await fetch(`${toy.url}/toy/v1/world/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`toy admin ${name}: HTTP ${res.status} ${await res.text()}`)
    return res.status === 200 ? res.json() : undefined
  }
  return {
    toy,
    stateRoot: dir,
    async inject(groupId, message, from) {
      const r = (await admin('inject-message', { account: LOOP, groupId, message, ...from })) as { timestamp: number }
      return r.timestamp
    },
    async failNextCalls(method, n, error) {
      await admin('fail-next-calls', { method, n, ...error })
    },
    async setGroupRequests(groupId, requests) {
      await admin('group-members', { groupId, ...requests })
    },
    agentLog,
    rpc,
    async say(groupId, message, account = OPERATOR) {
      const r = (await rpc(account, 'send', { groupId, message })) as { timestamp: number }
      return r.timestamp
    },
    agentRuns() {
      try {
        return readFileSync(agentLog, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { sessionId: string; prompt: string; allow: string[] })
      } catch {
        return []
      }
    },
    async close() {
      await toy.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** What an operator's phone receives: the group messages on its account's events stream, and their files. */
export interface Phone {
  messages: SignalMessage[]
  /** Resolves with the first message so far or to come that matches `test`. */
  next(test: (m: SignalMessage) => boolean, what: string, timeoutMs?: number): Promise<SignalMessage>
  attachment(id: string, groupId: string): Promise<Uint8Array>
  close(): Promise<void>
}

export async function phoneOf(world: World, account: string): Promise<Phone> {
  const backend = createHttpSignalBackend({ url: world.toy.url, account, timeoutMs: 30_000, streamIdleMs: 60_000 })
  const stop = new AbortController()
  const stream = await backend.openEvents(stop.signal)
  const messages: SignalMessage[] = []
  const reading = (async () => {
    try {
      for await (const e of stream) if (e.type === 'message') messages.push(e)
    } catch {
      // closed
    }
  })()
  return {
    messages,
    async next(test, what, timeoutMs = 15_000) {
      await until(() => messages.some(test), timeoutMs, what)
      return messages.find(test) as SignalMessage
    },
    attachment: (id, groupId) => backend.getAttachment(id, groupId),
    async close() {
      stop.abort()
      stream.close()
      await reading
      await backend.close()
    },
  }
}

/** The argv of a chat with the fake agent. */
export function chatArgv(topic: string | undefined, extra: string[] = []): string[] {
  const template = JSON.stringify([
    process.execPath,
    FAKE_AGENT,
    '--session-id',
    '{sessionId}',
    '--allow-tool={allowTool}',
    '-p',
    '{prompt}',
  ])
  return [
    'chat',
    ...(topic === undefined ? [] : [topic]),
    '--operator',
    OPERATOR,
    '--agent',
    'command',
    '--agent-command',
    template,
    '--host',
    'testbox',
    ...extra,
  ]
}

/** The environment of a chat run through its bin on `world`, the fake agent writing its grandchild's pid to `pidFile`. */
export function binEnv(world: World, pidFile: string): Record<string, string> {
  return {
    SIGNAL_CLI_URL: world.toy.url,
    SIGNAL_CLI_ACCOUNT: LOOP,
    XDG_STATE_HOME: world.stateRoot,
    FAKE_AGENT_LOG: world.agentLog,
    FAKE_AGENT_PIDFILE: pidFile,
    FAKE_AGENT_SECRET: AGENT_SECRET,
  }
}

export function configFor(world: World, argv: string[], env: Record<string, string> = {}): ChatConfig {
  const inv = loadConfig(argv, {
    SIGNAL_CLI_URL: world.toy.url,
    SIGNAL_CLI_ACCOUNT: LOOP,
    XDG_STATE_HOME: world.stateRoot,
    ...env,
  })
  if (inv.kind !== 'run') throw new Error('expected a run invocation')
  return inv.config
}

/** Waits until `check` holds (for state outside the loop's events, like a process the agent spawned). */
export async function until(check: () => boolean, ms = 5000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

type Posted = Extract<ChatEvent, { type: 'posted' }>

/** A running chat. */
export interface RunningChat {
  events: EventLog
  logs: string[]
  exit: Promise<ExitCode>
  stop: AbortController
  ready: Promise<{ groupId: string; sessionId: string }>
  /** Resolves once turn `n` has ended. */
  turnEnded(n: number): Promise<Extract<ChatEvent, { type: 'turn-ended' }>>
  /** The fake agent's reply to `prompt` (it echoes `prompt=<prompt>`), once posted to the group. */
  replied(prompt: string): Promise<Posted>
  /** Posts `prompt` to the chat's group as the operator and waits for the reply to it there. */
  ask(prompt: string): Promise<Posted>
}

/** How a test starts a chat, beyond the harness's defaults. */
export interface StartOptions {
  wrapSignal?: (s: ChatSignal) => ChatSignal
  events?: EventLog
  deps?: Partial<RunChatDeps>
  /** Added to the agent's environment. */
  env?: Record<string, string>
}

export function startChat(world: World, config: ChatConfig, options: StartOptions = {}): RunningChat {
  const events = options.events ?? new EventLog()
  const logs: string[] = []
  const stop = new AbortController()
  const env = {
    ...process.env,
    FAKE_AGENT_LOG: world.agentLog,
    FAKE_AGENT_SECRET: AGENT_SECRET,
    DEPLOY_TOKEN: AGENT_SECRET,
    ...options.env,
  }
  const exit = runChat(config, {
    agentEnv: env,
    log: (l) => logs.push(l),
    stop: stop.signal,
    timing: FAST_TIMING,
    observe: events.observe,
    ...(options.wrapSignal === undefined
      ? {}
      : {
          makeSignal: (account: string | undefined) => options.wrapSignal?.(createHttp(config, account)) as ChatSignal,
        }),
    ...options.deps,
  })
  const ready = events.next('ready').then((e) => ({ groupId: e.groupId, sessionId: e.sessionId }))
  const replied = (prompt: string) => events.next('posted', (e) => e.text.includes(`prompt=${prompt}`))
  return {
    events,
    logs,
    exit,
    stop,
    ready,
    turnEnded: (n) => events.next('turn-ended', (e) => e.turn === n),
    replied,
    async ask(prompt) {
      await world.say((await ready).groupId, prompt)
      return replied(prompt)
    },
  }
}

/** `chat <topic> [extra]` with the fake agent on `world`, started and not waited for. */
export function chatIn(
  world: World,
  topic: string | undefined,
  extra: string[] = [],
  options: StartOptions & { configEnv?: Record<string, string> } = {},
): RunningChat {
  return startChat(world, configFor(world, chatArgv(topic, extra), options.configEnv), options)
}

/** `chat --resume <groupId>`: the next start of an earlier chat. */
export function resumeIn(world: World, groupId: string): RunningChat {
  return chatIn(world, undefined, ['--resume', groupId])
}

/** A chat started on a fresh world, once its group is ready. */
export interface ReadyChat {
  world: World
  chat: RunningChat
  groupId: string
  sessionId: string
}

/** What a test file gets from `useWorld`: worlds and what hangs on them, closed after each test. */
export interface TestWorlds {
  /** A fresh world for this test. */
  world(options?: { singleAccount?: boolean }): Promise<World>
  /** A fresh world with `chat <topic> [extra]` running on it, once the chat's group is ready. */
  chat(topic: string, extra?: string[], options?: StartOptions): Promise<ReadyChat>
  /** What `account`'s phone receives on `world`. */
  phone(world: World, account: string): Promise<Phone>
  /** Runs `close` after the test, before what was opened earlier is closed. */
  defer(close: () => void | Promise<void>): void
}

/**
 * Registers an `afterEach` that closes, newest first, every world (and phone, and deferred
 * closer) the test opened through the returned object. Called once at the top of a test file.
 */
export function useWorld(): TestWorlds {
  const open: Array<() => void | Promise<void>> = []
  afterEach(async () => {
    const failures: unknown[] = []
    for (let close = open.pop(); close !== undefined; close = open.pop()) {
      try {
        await close()
      } catch (err) {
        failures.push(err)
      }
    }
    if (failures.length > 0) throw failures[0]
  })
  const worlds: TestWorlds = {
    async world(options) {
      const world = await createWorld(options)
      open.push(() => world.close())
      return world
    },
    async chat(topic, extra = [], options = {}) {
      const world = await worlds.world()
      const chat = chatIn(world, topic, extra, options)
      return { world, chat, ...(await chat.ready) }
    },
    async phone(world, account) {
      const phone = await phoneOf(world, account)
      open.push(() => phone.close())
      return phone
    },
    defer: (close) => void open.push(close),
  }
  return worlds
}

function createHttp(config: ChatConfig, account: string | undefined): ChatSignal {
  return createChatSignal({ url: config.signalUrl, account })
}

/** Ends a chat with a local stop and checks it exits 0. */
export async function stopsCleanly(chat: RunningChat): Promise<void> {
  chat.stop.abort()
  expect(await chat.exit).toBe(0)
}

/**
 * True while `pid` runs. A zombie awaiting its reaper counts as gone; so does a process that
 * vanished between the two checks. Without /proc, signal 0 alone decides.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}
