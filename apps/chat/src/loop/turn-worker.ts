/**
 * The turn worker: takes prompts from the inbox one at a time, runs each as an agent turn in the
 * pinned session, and posts its report. It owns the running turn: `cancel()` kills it, `settled()`
 * resolves once no turn runs (the promise of the turn itself, never a poll).
 */
import { buildTurnArgv } from '../agent/argv.ts'
import { runTurn } from '../agent/turn-runner.ts'
import type { ChatConfig } from '../config.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import { saveChatState } from '../state/chat-state.ts'
import type { ChatTiming, Observe } from './chat-events.ts'
import type { Inbox } from './inbox.ts'
import { formatDuration } from './messages.ts'
import type { Queued } from './origin.ts'
import type { Speaker } from './speaker.ts'
import { reportTurn } from './turn-report.ts'

/** The turn in progress, as `status` shows it. */
export interface RunningTurn {
  turn: number
  startedAt: number
  outputBytes: number
  /** The prompt's inbox item; none for the topic, which runs as the first turn. */
  item: Queued | undefined
}

export interface TurnWorkerOptions {
  config: ChatConfig
  chat: PreparedChat
  timing: ChatTiming
  agentEnv: NodeJS.ProcessEnv
  cwd: string | undefined
  inbox: Inbox
  redactor: Redactor
  speaker: Speaker
  observe: Observe
  log(line: string): void
  /** Aborted when the chat ends: the running turn is killed and no other starts. */
  life: AbortSignal
  /** A turn broke outside the agent (a post, a reaction, the state file). */
  onError(what: string, err: unknown): void
}

export interface TurnWorker {
  /** Starts taking turns, the topic first when given. */
  start(firstPrompt: string | undefined): void
  /** Tells the worker the inbox has a new item. */
  wake(): void
  /** Kills the running turn; false when none runs. The queue goes on. */
  cancel(): boolean
  readonly running: RunningTurn | undefined
  /** Resolves once no turn runs (at once when none does); after `life` aborts, once it is reaped. */
  settled(): Promise<void>
}

export function createTurnWorker(o: TurnWorkerOptions): TurnWorker {
  const { config, chat, timing, speaker } = o
  const state = chat.state
  let running: RunningTurn | undefined
  let runningAbort: AbortController | undefined
  let current: Promise<void> | undefined
  let wake: (() => void) | undefined

  async function runOne(item: Queued | undefined, prompt: string): Promise<void> {
    const turn = state.turns + 1
    const abort = new AbortController()
    const onLife = () => abort.abort()
    o.life.addEventListener('abort', onLife, { once: true })
    running = { turn, startedAt: Date.now(), outputBytes: 0, item }
    runningAbort = abort
    try {
      if (item !== undefined) await speaker.setReceipt(item, 'running')
      await o.observe({ type: 'turn-started', turn, prompt })
      o.log(`turn ${turn} started`)
      const argv = buildTurnArgv({
        agent: config.agent,
        sessionId: state.sessionId,
        prompt,
        allowTools: config.allowTools,
        allTools: config.allTools,
        sessionStarted: state.sessionStarted,
        commandTemplate: config.agentCommand,
        program: config.agentProgram,
        optionalFlags: chat.agentFlags,
      })
      const result = await runTurn({
        argv,
        env: o.agentEnv,
        ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
        signal: abort.signal,
        timeoutMs: config.turnTimeoutMs,
        graceMs: timing.graceMs,
        maxOutputBytes: config.maxReplyBytes,
        tailBytes: 4096,
        livenessMs: timing.livenessMs,
        onLiveness: (l) => {
          if (running !== undefined) running.outputBytes = l.outputBytes
          o.log(`turn ${turn} still running: ${formatDuration(l.elapsedMs)}, ${l.outputBytes} bytes of output`)
        },
      })
      state.turns = turn
      if (result.spawnError === undefined) state.sessionStarted = true
      saveChatState(config.stateRoot, state)
      o.log(`turn ${turn} ${result.outcome} after ${formatDuration(result.durationMs)}`)
      await o.observe({ type: 'turn-ended', turn, outcome: result.outcome })
      if (o.life.aborted) return
      const report = await reportTurn(result, turn, o.redactor, config.turnTimeoutMs)
      if (item !== undefined) await speaker.setReceipt(item, report.receipt)
      // A cancelled turn's notice is posted even though its own abort signal fired.
      await speaker.say(report.text, report.receipt === 'cancelled' ? o.life : abort.signal, turn)
    } finally {
      o.life.removeEventListener('abort', onLife)
      running = undefined
      runningAbort = undefined
    }
  }

  function guarded(item: Queued | undefined, prompt: string): Promise<void> {
    current = runOne(item, prompt).catch((err: unknown) => o.onError('turn', err))
    return current.finally(() => {
      current = undefined
    })
  }

  async function loop(firstPrompt: string | undefined): Promise<void> {
    if (firstPrompt !== undefined) await guarded(undefined, firstPrompt)
    while (!o.life.aborted) {
      const item = o.inbox.take() as Queued | undefined
      if (item === undefined) {
        await new Promise<void>((resolve) => {
          const onAbort = () => resolve()
          wake = () => {
            o.life.removeEventListener('abort', onAbort)
            resolve()
          }
          o.life.addEventListener('abort', onAbort, { once: true })
        })
        wake = undefined
        continue
      }
      await guarded(item, item.text)
    }
  }

  return {
    start(firstPrompt) {
      void loop(firstPrompt)
    },
    wake: () => wake?.(),
    cancel() {
      if (running === undefined) return false
      o.log(`cancel: killing turn ${running.turn}`)
      runningAbort?.abort()
      return true
    },
    get running() {
      return running
    },
    settled: () => current ?? Promise.resolve(),
  }
}
