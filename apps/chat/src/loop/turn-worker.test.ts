// The turn worker, with the agent faked: one turn at a time in inbox order, the topic first,
// `settled()` tied to the turn itself, `cancel()` killing the agent then stopping the reply, and
// the turn counted and saved before the group hears of it.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { getEventListeners } from 'node:events'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { RunTurnOptions, TurnResult } from '../agent/turn-runner.ts'
import type { ChatConfig } from '../config.ts'
import { ChatError } from '../errors.ts'
import { createRedactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import { chatStem, loadChatState } from '../state/chat-state.ts'
import { processStartTicks } from '../state/leftover-turn.ts'
import { rawOutputPath, savedOutputPath } from '../state/saved-output.ts'
import { DEFAULT_TIMING, type ChatEvent } from './chat-events.ts'
import { createInbox } from './inbox.ts'
import { chatState, recordingAudit, SECRET } from './loop-fixture.ts'
import type { Queued } from './origin.ts'
import type { PostOptions, PostResult } from './poster.ts'
import type { DocReview } from '../review/sidecar-review.ts'
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

interface SetupOptions {
  sayResults?: PostResult[]
  /** The reply (the first post) waits for its abort signal. */
  holdSay?: boolean
  /** The first post waits for this. */
  firstSayAfter?: Promise<void>
  /** Every post throws this (a lost daemon). */
  sayThrows?: Error
  cwd?: string
  /** The sidecar's review API for document prompts. */
  review?: DocReview
}

function setup(o: SetupOptions = {}) {
  dir = mkdtempSync(join(tmpdir(), 'e2e-col-worker-'))
  const said: Array<{ text: string; turn: number | undefined; options: PostOptions | undefined }> = []
  const receipts: Array<[number, string]> = []
  const logs: string[] = []
  const events: ChatEvent[] = []
  const errors: Array<[string, unknown]> = []
  const sayAborts: AbortSignal[] = []
  const life = new AbortController()
  const speaker = {
    say: async (text: string, abort: AbortSignal, turn?: number, options?: PostOptions) => {
      said.push({ text, turn, options })
      sayAborts.push(abort)
      if (o.sayThrows !== undefined) throw o.sayThrows
      if (said.length === 1 && o.firstSayAfter !== undefined) await o.firstSayAfter
      // Only the reply itself is held; the notice after it is posted at once.
      if (o.holdSay === true && said.length === 1)
        await new Promise<void>((r) => abort.addEventListener('abort', () => r(), { once: true }))
      if (abort.aborted) return { kind: 'aborted', posted: 0, total: 2 }
      return o.sayResults?.shift() ?? { kind: 'posted', total: 1 }
    },
    setReceipt: async (item: Queued, to: string) => void receipts.push([item.timestamp, to]),
    react: async () => {},
  } as unknown as Speaker
  const state = chatState()
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
  const audit = recordingAudit()
  const worker = createTurnWorker({
    config,
    chat: { state, agentFlags: [] } as unknown as PreparedChat,
    timing: DEFAULT_TIMING,
    agentEnv: { DEPLOY_TOKEN: SECRET },
    cwd: o.cwd,
    inbox,
    redactor: createRedactor({ env: { DEPLOY_TOKEN: SECRET } }),
    speaker,
    audit: audit.log,
    setpriv: undefined,
    observe: async (e) => void events.push(e),
    log: (l) => logs.push(l),
    life: life.signal,
    onError: (what, err) => void errors.push([what, err]),
    review: o.review,
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
  /** The worker's listeners on the chat's life signal. */
  const lifeListeners = () => getEventListeners(life.signal, 'abort').length
  const audited = audit.entries
  return {
    worker,
    said,
    receipts,
    audit: audited,
    logs,
    events,
    errors,
    sayAborts,
    life,
    state,
    inbox,
    offer,
    root: dir,
    lifeListeners,
  }
}

/** A worker started without a topic, one prompt offered: resolves once the agent runs it. */
async function firstTurn(o: SetupOptions = {}, prompt = 'p') {
  const s = setup(o)
  s.worker.start(undefined)
  const item = s.offer(prompt)
  const t = await agentStarted(1)
  return { ...s, item, t }
}

/** Lets every promise chain the worker has in hand run (it waits on nothing else here). */
const flush = () => new Promise<void>((r) => setImmediate(r))

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
    await flush()
    expect(agent.turns).toHaveLength(1)
    expect(s.inbox.size).toBe(2)
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
    const s = await firstTurn()
    expect(s.t.options.timeoutMs).toBe(60_000)
    expect(s.t.options.maxOutputBytes).toBe(100_000)
    expect(s.t.options.graceMs).toBe(DEFAULT_TIMING.graceMs)
    expect(s.t.options.livenessMs).toBe(DEFAULT_TIMING.livenessMs)
    expect(s.t.options.tailBytes).toBe(4096)
    expect(s.t.options.env).toEqual({ DEPLOY_TOKEN: SECRET })
    expect(s.t.options).not.toHaveProperty('cwd')
    expect(s.t.options.spillPath).toBe(rawOutputPath(s.root, s.state.groupId, 1))
    expect(s.worker.running?.outputBytes).toBe(0)
    s.t.options.onOutput?.(42)
    expect(s.worker.running?.outputBytes).toBe(42)
    s.t.options.onLiveness?.({ elapsedMs: 61_000, outputBytes: 42 })
    expect(s.logs).toContain('turn 1 still running: 1m01s, 42 bytes of output')
    s.t.finish({})
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    s.life.abort()
  })

  it('runs the agent in the working folder given', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'e2e-col-worker-cwd-'))
    try {
      const s = await firstTurn({ cwd })
      expect(s.t.options.cwd).toBe(cwd)
      s.life.abort()
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })

  it('records the running process group in the state file, and clears it when the turn ends', async () => {
    const s = await firstTurn()
    s.t.options.onStart?.(undefined)
    expect(s.state.runningTurn).toBeUndefined()
    s.t.options.onStart?.(process.pid)
    // The leader's start time tells a later sweep the group is still this one.
    const leaderStart = processStartTicks(process.pid)
    expect(leaderStart).toBeTypeOf('number')
    expect(s.state.runningTurn).toStrictEqual({ turn: 1, pgid: process.pid, loopPid: process.pid, leaderStart })
    expect(loadChatState(s.root, s.state.groupId).runningTurn).toStrictEqual(s.state.runningTurn)
    s.t.finish({ stdout: 'x' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    await s.worker.settled()
    const saved = loadChatState(s.root, s.state.groupId)
    expect(saved.runningTurn).toBeUndefined()
    expect(saved.turns).toBe(1)
    expect(saved.sessionStarted).toBe(true)
    s.life.abort()
  })

  it('records a process group whose leader /proc does not show without a start time', async () => {
    const s = await firstTurn()
    // Above the kernel's largest pid (2^22): no such process.
    const gone = 2 ** 22 + 1
    expect(processStartTicks(gone)).toBeUndefined()
    s.t.options.onStart?.(gone)
    expect(s.state.runningTurn).toStrictEqual({ turn: 1, pgid: gone, loopPid: process.pid })
    expect(loadChatState(s.root, s.state.groupId).runningTurn).toStrictEqual({
      turn: 1,
      pgid: gone,
      loopPid: process.pid,
    })
    s.t.finish({ stdout: 'x' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    s.life.abort()
  })

  it('a turn whose process group cannot be recorded runs on, and the log says so', async () => {
    const s = await firstTurn()
    // A folder where the state file's temporary copy goes makes the save fail.
    const tmp = `${chatStem(s.root, s.state.groupId)}.json.${process.pid}.tmp`
    mkdirSync(tmp)
    s.t.options.onStart?.(process.pid)
    rmSync(tmp, { recursive: true })
    expect(s.logs.at(-1)).toMatch(/^could not record turn 1's process group: EISDIR/)
    expect(s.errors).toEqual([])
    s.t.finish({ stdout: 'x' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    await s.worker.settled()
    expect(loadChatState(s.root, s.state.groupId)).toMatchObject({ turns: 1 })
    expect(s.errors).toEqual([])
    s.life.abort()
  })

  it('leaves the session unstarted when the agent could not start, and says why', async () => {
    const s = await firstTurn()
    s.t.finish({ outcome: 'failed', exitCode: null, spawnError: 'ENOENT' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    await s.worker.settled()
    expect(s.state.sessionStarted).toBe(false)
    expect(s.state.turns).toBe(1)
    expect(s.said[0]!.text).toContain('the agent could not start (ENOENT)')
    expect(s.receipts).toEqual([
      [s.item.timestamp, 'running'],
      [s.item.timestamp, 'failed'],
    ])
    s.life.abort()
  })

  it('marks the prompt running, observes the turn, and records its outcome', async () => {
    const s = await firstTurn({}, 'do it')
    expect(s.receipts).toEqual([[s.item.timestamp, 'running']])
    expect(s.events).toEqual([{ type: 'turn-started', turn: 1, prompt: 'do it' }])
    expect(s.logs).toEqual(['turn 1 started'])
    s.t.finish({ stdout: 'done it' })
    await vi.waitFor(() => expect(s.audit).toHaveLength(1), within)
    expect(s.events[1]).toEqual({ type: 'turn-ended', turn: 1, outcome: 'ok' })
    // No spill, so nothing about saving one.
    expect(s.logs).toEqual(['turn 1 started', 'turn 1 ok after 0s'])
    expect(s.receipts.at(-1)).toEqual([s.item.timestamp, 'done'])
    expect(s.audit[0]).toMatchObject({ event: 'turn', turn: 1, outcome: 'done', signalTimestamp: s.item.timestamp })
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
    await flush()
    expect(settled).toBe(false)
    t.finish({ stdout: 'r' })
    await p
    expect(s.said).toHaveLength(1)
    expect(s.worker.running).toBeUndefined()
    s.life.abort()
  })

  it('tells the group about replies an earlier run left undelivered before the first turn, and settled() waits for it', async () => {
    let release: (() => void) | undefined
    const s = setup({ firstSayAfter: new Promise<void>((r) => (release = r)) })
    s.state.undelivered = [{ turn: 4, file: '/f4', posted: 1, total: 3, why: 'w' }]
    s.worker.start('the topic')
    expect(s.said.map((x) => x.text)).toEqual([
      'turn 4: the reply could not be delivered (1 of 3 part(s) posted; w). It is saved on box in /f4.',
    ])
    let settled = false
    const p = s.worker.settled().then(() => {
      settled = true
    })
    await flush()
    // The topic waits for the notice.
    expect(agent.turns).toHaveLength(0)
    expect(settled).toBe(false)
    release?.()
    await p
    expect(s.state.undelivered).toBeUndefined()
    ;(await agentStarted(1)).finish({ stdout: 'topic done' })
    await vi.waitFor(() => expect(s.said).toHaveLength(2), within)
    expect(s.errors).toEqual([])
    s.life.abort()
  })

  it('a notice of an earlier reply that fails is reported as such, and the turns still run', async () => {
    const lost = new Error('daemon lost')
    const s = setup({ sayThrows: lost })
    s.state.undelivered = [{ turn: 4, file: '/f4', posted: 1, total: 3, why: 'w' }]
    s.worker.start('the topic')
    await agentStarted(1)
    expect(s.errors).toEqual([['undelivered notice', lost]])
    s.life.abort()
  })

  it('a turn whose reply cannot be posted is reported, and the next prompt still runs', async () => {
    const lost = new Error('daemon lost')
    const s = await firstTurn({ sayThrows: lost })
    s.offer('next')
    s.t.finish({ stdout: 'reply' })
    await agentStarted(2)
    expect(s.errors).toEqual([['turn', lost]])
    expect(s.worker.running?.turn).toBe(2)
    // The reply is kept for the operator.
    expect(s.state.undelivered?.[0]).toMatchObject({ turn: 1, why: 'the daemon was lost' })
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
    expect(s.worker.cancel()).toBe(false)
    s.offer('next')
    ;(await agentStarted(2)).finish({ stdout: 'fine' })
    await vi.waitFor(() => expect(s.said).toHaveLength(2), within)
    expect(s.said[1]!.text).toBe('fine')
    s.life.abort()
  })

  it('cancel() during posting stops the rest of the reply, not the agent', async () => {
    const s = await firstTurn({ holdSay: true })
    s.t.finish({ stdout: 'a long reply' })
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
    expect(s.worker.cancel()).toBe(false)
    await s.worker.settled()
    expect(s.said[1]!.text).toBe('turn 1: the rest of the reply is cancelled (0 of 2 part(s) posted).')
    expect(s.audit[0]).toMatchObject({ turn: 1, outcome: 'reply cancelled after 0 of 2 part(s)' })
    expect(s.worker.running).toBeUndefined()
    s.life.abort()
  })

  it('a prompt that arrives while idle wakes the worker', async () => {
    const s = setup()
    s.worker.start(undefined)
    await flush()
    expect(agent.turns).toHaveLength(0)
    s.offer('late')
    ;(await agentStarted(1)).finish({ stdout: 'ok' })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    s.life.abort()
  })

  it('leaves one listener at most on the chat’s signal however many turns run, and none once it ends', async () => {
    const s = setup({ sayResults: [{ kind: 'posted', total: 1 }] })
    s.worker.start(undefined)
    await flush()
    // Idle: only the wait for a prompt listens.
    expect(s.lifeListeners()).toBe(1)
    for (let n = 1; n <= 3; n++) {
      s.offer(`prompt ${n}`)
      const t = await agentStarted(n)
      // Running: only this turn's kill listens (the idle wait and earlier turns left nothing).
      expect(s.lifeListeners()).toBe(1)
      t.finish({ stdout: `reply ${n}` })
      await vi.waitFor(() => expect(s.said).toHaveLength(n), within)
      await s.worker.settled()
      await flush()
      expect(s.lifeListeners()).toBe(1)
    }
    s.life.abort()
    await flush()
    expect(s.lifeListeners()).toBe(0)
  })

  it('when the chat ends mid-turn the agent is killed, the outcome audited, and nothing else starts', async () => {
    const s = await firstTurn()
    s.offer('never')
    s.life.abort()
    expect(s.t.options.signal?.aborted).toBe(true)
    await vi.waitFor(() => expect(s.audit).toHaveLength(1), within)
    await s.worker.settled()
    expect(s.audit[0]).toMatchObject({ turn: 1, outcome: 'cancelled: the chat stopped' })
    expect(s.said).toEqual([])
    expect(s.events.at(-1)).toEqual({ type: 'turn-ended', turn: 1, outcome: 'cancelled' })
    expect(s.receipts).toEqual([[s.item.timestamp, 'running']])
    await flush()
    expect(agent.turns).toHaveLength(1)
    expect(s.inbox.size).toBe(1)
    expect(s.lifeListeners()).toBe(0)
  })

  it('when the chat ends while a reply is posted the rest stops and the reply is saved for the next start', async () => {
    const s = await firstTurn({ holdSay: true })
    s.offer('never')
    s.t.finish({ stdout: `a long reply ${SECRET}` })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    s.life.abort()
    expect(s.sayAborts[0]!.aborted).toBe(true)
    await s.worker.settled()
    expect(s.said).toHaveLength(1)
    expect(s.audit.map((e) => e.outcome)).toEqual(['undelivered: the chat stopped'])
    const u = s.state.undelivered?.[0]
    expect(u).toMatchObject({ turn: 1, posted: 0, total: 2, why: 'the chat stopped while it was posted' })
    expect(readFileSync(u!.file, 'utf8')).toBe('a long reply [REDACTED:env]')
    expect(s.worker.running).toBeUndefined()
    await flush()
    expect(agent.turns).toHaveLength(1)
    expect(s.lifeListeners()).toBe(0)
  })

  it('a chat that ends while idle starts no turn for a prompt offered after it', async () => {
    const s = setup()
    s.worker.start(undefined)
    await flush()
    s.life.abort()
    await flush()
    expect(s.lifeListeners()).toBe(0)
    s.offer('too late')
    await flush()
    expect(agent.turns).toHaveLength(0)
  })

  it('a chat that ends before the topic runs starts no turn', async () => {
    const s = setup()
    s.life.abort()
    s.worker.start('topic')
    await flush()
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
    expect(s.logs).toEqual([`removed ${raw}, left by a turn that never ended`])
    s.life.abort()
  })

  it('redacts a spilled output into the saved file and removes the raw spill', async () => {
    const s = await firstTurn()
    const raw = s.t.options.spillPath!
    mkdirSync(dirname(raw), { recursive: true })
    writeFileSync(raw, `head ${SECRET} tail`)
    s.t.finish({ stdout: 'head', droppedStdoutBytes: 500, spilledTo: raw })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    const saved = savedOutputPath(s.root, s.state.groupId, 1)
    expect(readFileSync(saved, 'utf8')).not.toContain(SECRET)
    expect(existsSync(raw)).toBe(false)
    expect(s.said[0]!.text).toContain(saved)
    expect(s.said[0]!.text).not.toContain(raw)
    s.life.abort()
  })

  it('says the output could not be kept when the spill cannot be redacted', async () => {
    const s = await firstTurn()
    s.t.finish({ stdout: 'head', droppedStdoutBytes: 500, spilledTo: join(s.root, 'missing.raw') })
    await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
    expect(s.logs.some((l) => l.startsWith('turn 1: could not save its output: '))).toBe(true)
    expect(s.said[0]!.text).toContain('500 more bytes of output could not be kept')
    s.life.abort()
  })

  describe('a document prompt', () => {
    const doc = { docId: 'd1', title: 'Trip plan', text: 'Day 2: long hike and a picnic.', base: 'b1' }
    const review = (): DocReview & { made: string[] } => {
      const made: string[] = []
      return {
        made,
        open: async (title) => {
          if (title.toLowerCase() !== 'trip plan')
            throw new ChatError('CHAT_DOC_UNAVAILABLE', `no document is titled “${title}”`)
          return doc
        },
        suggest: async (_d, change) => {
          if (!doc.text.includes(change.find)) return { kind: 'stale' }
          made.push(change.find)
          return { kind: 'made', id: `s${made.length}` }
        },
      }
    }

    it('runs the agent on the document and posts the suggestions made instead of its answer', async () => {
      const r = review()
      const s = await firstTurn({ review: r }, "in 'Trip plan': shorten day 2")
      const prompt = s.t.options.argv.at(-1) ?? ''
      expect(prompt).toContain('shorten day 2')
      expect(prompt).toContain('Day 2: long hike and a picnic.')
      expect(s.events[0]).toEqual({ type: 'turn-started', turn: 1, prompt: "in 'Trip plan': shorten day 2" })
      s.t.finish({
        stdout: `Sure:\nFIND: long hike\nREPLACE: walk\nNOTE: shorter\n---\nFIND: no such words\nREPLACE: x\nNOTE: y\n`,
      })
      await vi.waitFor(() => expect(s.audit).toHaveLength(1), within)
      expect(r.made).toEqual(['long hike'])
      expect(s.said.map((x) => x.text)).toEqual([
        'Suggested 1 change in “Trip plan”; approve them on your phone (Note to Self) or on the page.\n“no such words” was not found once in the text; not suggested.',
      ])
      expect(s.receipts.at(-1)).toEqual([s.item.timestamp, 'done'])
      s.life.abort()
    })

    it('is answered without running the agent when the chat has no agent token', async () => {
      const s = setup()
      s.worker.start(undefined)
      const item = s.offer('in “Trip plan”: shorten day 2')
      await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
      expect(s.said[0]?.text).toContain('--agent-token')
      expect(agent.turns).toHaveLength(0)
      expect(s.receipts.at(-1)).toEqual([item.timestamp, 'failed'])
      s.life.abort()
    })

    it('says which title it could not find, and runs no agent', async () => {
      const s = setup({ review: review() })
      s.worker.start(undefined)
      s.offer("in 'Holiday': shorten day 2")
      await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
      expect(s.said[0]?.text).toBe('No change suggested: no document is titled “Holiday”.')
      expect(agent.turns).toHaveLength(0)
      s.life.abort()
    })

    it('is cancelled while it reads the document, and runs no agent', async () => {
      const waiting: DocReview = {
        open: (_title, signal) =>
          new Promise((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
          ),
        suggest: async () => ({ kind: 'stale' }),
      }
      const s = setup({ review: waiting })
      s.worker.start(undefined)
      const item = s.offer("in 'Trip plan': shorten day 2")
      await vi.waitFor(() => expect(s.receipts).toEqual([[item.timestamp, 'running']]), within)
      expect(s.worker.cancel()).toBe(true)
      await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
      expect(s.said[0]?.text).toBe('document turn cancelled; the chat goes on.')
      expect(agent.turns).toHaveLength(0)
      expect(s.errors).toEqual([])
      s.life.abort()
    })

    it('reports an answer without change blocks, and suggests nothing', async () => {
      const r = review()
      const s = await firstTurn({ review: r }, "in 'trip plan': shorten day 2")
      s.t.finish({ stdout: 'I would rather not.' })
      await vi.waitFor(() => expect(s.said).toHaveLength(1), within)
      expect(s.said[0]?.text).toBe('No change suggested: the agent answered without any FIND/REPLACE block.')
      expect(r.made).toEqual([])
      s.life.abort()
    })
  })
})
