// The turn worker, with the agent faked: one turn at a time in inbox order, the topic first,
// `settled()` tied to the turn itself, `cancel()` killing the agent then stopping the reply, and
// the turn counted and saved before the group hears of it.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { RunTurnOptions, TurnResult } from '../agent/turn-runner.ts'
import type { ChatConfig } from '../config.ts'
import { createRedactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import type { AuditEntry, AuditLog } from '../state/audit-log.ts'
import { loadChatState, type ChatState } from '../state/chat-state.ts'
import { rawOutputPath, savedOutputPath } from '../state/saved-output.ts'
import { DEFAULT_TIMING, type ChatEvent } from './chat-events.ts'
import { createInbox } from './inbox.ts'
import type { Queued } from './origin.ts'
import type { PostOptions, PostResult } from './poster.ts'
import type { Speaker } from './speaker.ts'
import { createTurnWorker } from './turn-worker.ts'
import { within } from '../../test/wait.ts'

interface FakeTurn {
  options: RunTurnOptions
  finish(r: Partial<TurnResult>): void
}
const agent = vi.hoisted(() => ({ turns: [] as FakeTurn[], waiters: [] as Array<() => void> }))
vi.mock('../agent/turn-runner.ts', () => ({
  runTurn: (options: RunTurnOptions) =>
    new Promise<TurnResult>((resolve) => {
      const done = (r: Partial<TurnResult>) =>
        resolve({
          outcome: 'ok',
          exitCode: 0,
          signal: null,
          stdout: '',
          droppedStdoutBytes: 0,
          unkeptBytes: 0,
          outputBytes: 0,
          tail: '',
          durationMs: 5,
          ...r,
        })
      // A killed agent ends as `cancelled`, as the real runner reports it.
      options.signal?.addEventListener('abort', () => done({ outcome: 'cancelled', exitCode: null, signal: 'SIGTERM' }))
      agent.turns.push({ options, finish: done })
      for (const w of agent.waiters.splice(0)) w()
    }),
}))

const SECRET = 'zz-known-env-secret-value-31337'
let dir: string | undefined
afterEach(() => {
  agent.turns.length = 0
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

/** Resolves once the agent has been started `n` times in all (the test's own deadline bounds it). */
async function agentStarted(n: number): Promise<FakeTurn> {
  while (agent.turns.length < n) await new Promise<void>((r) => agent.waiters.push(r))
  return agent.turns[n - 1]!
}

function setup(o: { sayResults?: PostResult[]; holdSay?: boolean } = {}) {
  dir = mkdtempSync(join(tmpdir(), 'e2e-col-worker-'))
  const said: Array<{ text: string; turn: number | undefined; options: PostOptions | undefined }> = []
  const receipts: Array<[number, string]> = []
  const audit: AuditEntry[] = []
  const logs: string[] = []
  const events: ChatEvent[] = []
  const errors: Array<[string, unknown]> = []
  const sayAborts: AbortSignal[] = []
  const life = new AbortController()
  const speaker = {
    say: async (text: string, abort: AbortSignal, turn?: number, options?: PostOptions) => {
      said.push({ text, turn, options })
      sayAborts.push(abort)
      // Only the reply itself is held; the notice after it is posted at once.
      if (o.holdSay === true && said.length === 1)
        await new Promise<void>((r) => abort.addEventListener('abort', () => r(), { once: true }))
      if (abort.aborted) return { kind: 'aborted', posted: 0, total: 2 }
      return o.sayResults?.shift() ?? { kind: 'posted', total: 1 }
    },
    setReceipt: async (item: Queued, to: string) => void receipts.push([item.timestamp, to]),
    react: async () => {},
  } as unknown as Speaker
  const state: ChatState = {
    version: 1,
    groupId: 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI=',
    groupName: 'g',
    sessionId: '00000000-0000-4000-8000-000000000001',
    agent: 'command',
    topic: 't',
    account: '+15550000001',
    turns: 0,
    sessionStarted: false,
    createdAt: 'now',
  }
  const config = {
    stateRoot: dir,
    host: 'box',
    agent: 'command',
    agentCommand: ['my-agent', '{prompt}'],
    allowTools: [],
    allTools: false,
    turnTimeoutMs: 60_000,
    maxReplyBytes: 100_000,
    deliveryTimeoutMs: 60_000,
  } as unknown as ChatConfig
  const inbox = createInbox(8)
  const auditLog: AuditLog = { path: 'audit', record: async (e) => void audit.push(e) }
  const worker = createTurnWorker({
    config,
    chat: { state, agentFlags: [] } as unknown as PreparedChat,
    timing: DEFAULT_TIMING,
    agentEnv: { DEPLOY_TOKEN: SECRET },
    cwd: undefined,
    inbox,
    redactor: createRedactor({ env: { DEPLOY_TOKEN: SECRET } }),
    speaker,
    audit: auditLog,
    setpriv: undefined,
    observe: async (e) => void events.push(e),
    log: (l) => logs.push(l),
    life: life.signal,
    onError: (what, err) => void errors.push([what, err]),
  })
  let ts = 100
  const offer = (text: string): Queued => {
    const item: Queued = {
      text,
      author: '+15550000002',
      timestamp: ts++,
      origin: { kind: 'signal', author: '+15550000002', timestamp: ts - 1, device: 1 },
      receipt: 'queued',
    } as Queued
    inbox.offer(item)
    worker.wake()
    return item
  }
  return { worker, said, receipts, audit, logs, events, errors, sayAborts, life, state, inbox, offer, root: dir }
}

describe('the turn worker', () => {
  it('runs the topic first, then the inbox in order, one turn at a time', async () => {
    const s = setup()
    s.worker.start('the topic')
    const first = await agentStarted(1)
    expect(first.options.argv).toContain('the topic')
    expect(s.worker.running?.turn).toBe(1)
    expect(s.worker.running?.item).toBeUndefined()
    expect(s.worker.running?.phase).toEqual({ kind: 'running' })
    s.offer('second')
    s.offer('third')
    // The second prompt waits for the first turn: nothing else has started.
    await new Promise((r) => setTimeout(r, 20))
    expect(agent.turns).toHaveLength(1)
    first.finish({ stdout: 'answer one' })
    const second = await agentStarted(2)
    expect(second.options.argv).toContain('second')
    expect(s.worker.running?.turn).toBe(2)
    second.finish({ stdout: 'answer two' })
    const third = await agentStarted(3)
    expect(third.options.argv).toContain('third')
    third.finish({ stdout: 'answer three' })
    await vi.waitFor(() => expect(s.said).toHaveLength(3), within)
    await s.worker.settled()
    expect(s.said.map((x) => [x.text, x.turn])).toEqual([
      ['answer one', 1],
      ['answer two', 2],
      ['answer three', 3],
    ])
    expect(s.worker.running).toBeUndefined()
    expect(s.state.turns).toBe(3)
    expect(s.errors).toEqual([])
    s.life.abort()
  })

  it('passes the agent its bounds and spill path, and counts its output while it runs', async () => {
    const s = setup()
    s.worker.start(undefined)
    s.offer('p')
    const t = await agentStarted(1)
    expect(t.options.timeoutMs).toBe(60_000)
    expect(t.options.maxOutputBytes).toBe(100_000)
    expect(t.options.graceMs).toBe(DEFAULT_TIMING.graceMs)
    expect(t.options.livenessMs).toBe(DEFAULT_TIMING.livenessMs)
    expect(t.options.tailBytes).toBe(4096)
    expect(t.options.env).toEqual({ DEPLOY_TOKEN: SECRET })
    expect(t.options).not.toHaveProperty('cwd')
    expect(t.options.spillPath).toBe(rawOutputPath(s.root, s.state.groupId, 1))
    expect(s.worker.running?.outputBytes).toBe(0)
    t.options.onOutput?.(42)
    expect(s.worker.running?.outputBytes).toBe(42)
    t.options.onLiveness?.({ elapsedMs: 61_000, outputBytes: 42 })
    expect(s.logs.some((l) => l.startsWith('turn 1 still running: ') && l.endsWith(', 42 bytes of output'))).toBe(true)
    t.finish({})
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    s.life.abort()
  })

  it('records the running process group in the state file, and clears it when the turn ends', async () => {
    const s = setup()
    s.worker.start(undefined)
    s.offer('p')
    const t = await agentStarted(1)
    t.options.onStart?.(undefined)
    expect(s.state.runningTurn).toBeUndefined()
    t.options.onStart?.(process.pid)
    expect(s.state.runningTurn).toMatchObject({ turn: 1, pgid: process.pid, loopPid: process.pid })
    expect(loadChatState(s.root, s.state.groupId).runningTurn?.pgid).toBe(process.pid)
    t.finish({ stdout: 'x' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    await s.worker.settled()
    const saved = loadChatState(s.root, s.state.groupId)
    expect(saved.runningTurn).toBeUndefined()
    expect(saved.turns).toBe(1)
    expect(saved.sessionStarted).toBe(true)
    s.life.abort()
  })

  it('leaves the session unstarted when the agent could not start, and says why', async () => {
    const s = setup()
    s.worker.start(undefined)
    const item = s.offer('p')
    ;(await agentStarted(1)).finish({ outcome: 'failed', exitCode: null, spawnError: 'ENOENT' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    await s.worker.settled()
    expect(s.state.sessionStarted).toBe(false)
    expect(s.state.turns).toBe(1)
    expect(s.said[0]!.text).toContain('the agent could not start (ENOENT)')
    expect(s.receipts).toEqual([
      [item.timestamp, 'running'],
      [item.timestamp, 'failed'],
    ])
    s.life.abort()
  })

  it('marks the prompt running, observes the turn, and records its outcome', async () => {
    const s = setup()
    s.worker.start(undefined)
    const item = s.offer('do it')
    await agentStarted(1)
    expect(s.receipts).toEqual([[item.timestamp, 'running']])
    expect(s.events).toEqual([{ type: 'turn-started', turn: 1, prompt: 'do it' }])
    expect(s.logs).toContain('turn 1 started')
    agent.turns[0]!.finish({ stdout: 'done it' })
    await vi.waitFor(() => expect(s.audit).toHaveLength(1), within)
    expect(s.events[1]).toEqual({ type: 'turn-ended', turn: 1, outcome: 'ok' })
    expect(s.logs.some((l) => l.startsWith('turn 1 ok after '))).toBe(true)
    expect(s.receipts.at(-1)).toEqual([item.timestamp, 'done'])
    s.life.abort()
  })

  it('settled() waits for the turn in progress and resolves at once when none is', async () => {
    const s = setup()
    await s.worker.settled()
    s.worker.start(undefined)
    s.offer('p')
    const t = await agentStarted(1)
    let settled = false
    const p = s.worker.settled().then(() => {
      settled = true
    })
    await new Promise((r) => setTimeout(r, 20))
    expect(settled).toBe(false)
    t.finish({ stdout: 'r' })
    await p
    expect(s.said).toHaveLength(1)
    expect(s.worker.running).toBeUndefined()
    s.life.abort()
  })

  it('cancel() kills the running agent and the chat goes on; false when nothing runs', async () => {
    const s = setup()
    expect(s.worker.cancel()).toBe(false)
    s.worker.start(undefined)
    const item = s.offer('long')
    const t = await agentStarted(1)
    expect(s.worker.cancel()).toBe(true)
    expect(t.options.signal?.aborted).toBe(true)
    // A second cancel of the same turn finds nothing more to stop.
    expect(s.worker.cancel()).toBe(false)
    expect(s.logs).toContain('cancel: killing turn 1')
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    await s.worker.settled()
    expect(s.said[0]!.text).toBe('turn 1 cancelled; the chat goes on.')
    expect(s.receipts.at(-1)).toEqual([item.timestamp, 'cancelled'])
    s.offer('next')
    ;(await agentStarted(2)).finish({ stdout: 'fine' })
    await vi.waitFor(() => expect(s.said).toHaveLength(2), within)
    expect(s.said[1]!.text).toBe('fine')
    s.life.abort()
  })

  it('cancel() during posting stops the rest of the reply, not the agent', async () => {
    const s = setup({ holdSay: true })
    s.worker.start(undefined)
    s.offer('p')
    ;(await agentStarted(1)).finish({ stdout: 'a long reply' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    expect(s.worker.running?.turn).toBe(1)
    expect(s.sayAborts[0]!.aborted).toBe(false)
    // `status` follows the reply: posting, then held while the daemon refuses.
    expect(s.worker.running?.phase).toEqual({ kind: 'posting', posted: 0, total: 0 })
    s.said[0]!.options?.progress?.onPart?.(1, 2)
    expect(s.worker.running?.phase).toEqual({ kind: 'posting', posted: 1, total: 2 })
    s.said[0]!.options?.progress?.onHeld?.('daemon down', 1, 2)
    expect(s.worker.running?.phase).toEqual({ kind: 'held', reason: 'daemon down', posted: 1, total: 2 })
    expect(s.worker.cancel()).toBe(true)
    expect(s.sayAborts[0]!.aborted).toBe(true)
    expect(s.logs).toContain("cancel: stopping the rest of turn 1's reply")
    await s.worker.settled()
    expect(s.said[1]!.text).toBe('turn 1: the rest of the reply is cancelled (0 of 2 part(s) posted).')
    expect(s.audit[0]).toMatchObject({ turn: 1, outcome: 'reply cancelled after 0 of 2 part(s)' })
    expect(s.worker.running).toBeUndefined()
    s.life.abort()
  })

  it('a prompt that arrives while idle wakes the worker', async () => {
    const s = setup()
    s.worker.start(undefined)
    await new Promise((r) => setTimeout(r, 20))
    expect(agent.turns).toHaveLength(0)
    s.offer('late')
    ;(await agentStarted(1)).finish({ stdout: 'ok' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    s.life.abort()
  })

  it('when the chat ends mid-turn the agent is killed, the outcome audited, and nothing else starts', async () => {
    const s = setup()
    s.worker.start(undefined)
    const item = s.offer('p')
    s.offer('never')
    const t = await agentStarted(1)
    s.life.abort()
    expect(t.options.signal?.aborted).toBe(true)
    await vi.waitFor(() => expect(s.audit).toHaveLength(1), within)
    await s.worker.settled()
    expect(s.audit[0]).toMatchObject({ turn: 1, outcome: 'cancelled: the chat stopped' })
    expect(s.said).toEqual([])
    expect(s.events.at(-1)).toEqual({ type: 'turn-ended', turn: 1, outcome: 'cancelled' })
    expect(s.receipts).toEqual([[item.timestamp, 'running']])
    await new Promise((r) => setTimeout(r, 20))
    expect(agent.turns).toHaveLength(1)
    expect(s.inbox.size).toBe(1)
  })

  it('a chat that ends before the topic runs starts no turn', async () => {
    const s = setup()
    s.life.abort()
    s.worker.start('topic')
    await new Promise((r) => setTimeout(r, 20))
    await s.worker.settled()
    expect(agent.turns).toHaveLength(0)
  })

  it('removes raw outputs a dead turn left behind before taking turns', async () => {
    const s = setup()
    const raw = rawOutputPath(s.root, s.state.groupId, 9)
    mkdirSync(dirname(raw), { recursive: true })
    writeFileSync(raw, `unredacted ${SECRET}`)
    s.worker.start(undefined)
    await vi.waitFor(() => expect(existsSync(raw)).toBe(false), within)
    expect(s.logs.some((l) => l.startsWith('removed ') && l.endsWith(', left by a turn that never ended'))).toBe(true)
    s.life.abort()
  })

  it('redacts a spilled output into the saved file and removes the raw spill', async () => {
    const s = setup()
    s.worker.start(undefined)
    s.offer('p')
    const t = await agentStarted(1)
    const raw = t.options.spillPath!
    mkdirSync(dirname(raw), { recursive: true })
    writeFileSync(raw, `head ${SECRET} tail`)
    t.finish({ stdout: 'head', droppedStdoutBytes: 500, spilledTo: raw })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    const saved = savedOutputPath(s.root, s.state.groupId, 1)
    expect(readFileSync(saved, 'utf8')).not.toContain(SECRET)
    expect(existsSync(raw)).toBe(false)
    expect(s.said[0]!.text).toContain(saved)
    expect(s.said[0]!.text).not.toContain(raw)
    s.life.abort()
  })

  it('says the output could not be kept when the spill cannot be redacted', async () => {
    const s = setup()
    s.worker.start(undefined)
    s.offer('p')
    const t = await agentStarted(1)
    t.finish({ stdout: 'head', droppedStdoutBytes: 500, spilledTo: join(s.root, 'missing.raw') })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    expect(s.logs.some((l) => l.startsWith('turn 1: could not save its output: '))).toBe(true)
    expect(s.said[0]!.text).toContain('500 more bytes of output could not be kept')
    s.life.abort()
  })
})
