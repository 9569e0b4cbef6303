/**
 * The turn worker: takes prompts from the inbox one at a time, runs each as an agent turn in the
 * pinned session, and delivers its report. It owns the turn in progress, from the agent's start to
 * the last body of its reply (delivered by `reply-delivery.ts`): `cancel()` kills the agent, or
 * stops the rest of a reply being posted; `settled()` resolves once no turn is in progress (the
 * promise of the turn itself, never a poll).
 */
import { buildTurnArgv } from '../agent/argv.ts'
import { withParentDeathGuard } from '../agent/parent-death.ts'
import { runTurn, type TurnResult } from '../agent/turn-runner.ts'
import type { ChatConfig } from '../config.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { DocReview } from '../review/sidecar-review.ts'
import type { PreparedChat } from '../setup.ts'
import type { AuditLog } from '../state/audit-log.ts'
import { saveChatState } from '../state/chat-state.ts'
import { rawOutputPath, removeRawOutputs, saveRedactedOutput, savedOutputPath } from '../state/saved-output.ts'
import { processStartTicks } from '../state/leftover-turn.ts'
import type { ChatTiming, Observe } from './chat-events.ts'
import { planTurn, type TurnPlan } from './doc-turn.ts'
import type { Inbox } from './inbox.ts'
import type { LoopContext } from './loop-context.ts'
import { formatDuration } from './messages.ts'
import type { Queued } from './origin.ts'
import { createReplyDelivery, type TurnPhase } from './reply-delivery.ts'
import type { Speaker } from './speaker.ts'
import type { TurnReport } from './turn-report.ts'

/** The turn in progress, as `status` shows it. */
export interface RunningTurn {
  turn: number
  startedAt: number
  /** Bytes the agent wrote so far (stdout and stderr), updated as they arrive. */
  outputBytes: number
  phase: TurnPhase
  /** The prompt's inbox item; none for the topic, which runs as the first turn. */
  item: Queued | undefined
}

/**
 * `life` kills the running turn and starts no other; `onError` hears of a turn that broke outside
 * the agent (a post, a reaction, the state file).
 */
export interface TurnWorkerOptions extends LoopContext {
  config: ChatConfig
  chat: PreparedChat
  timing: ChatTiming
  agentEnv: NodeJS.ProcessEnv
  cwd: string | undefined
  inbox: Inbox
  redactor: Redactor
  speaker: Speaker
  audit: AuditLog
  /** `setpriv` for the parent-death guard, when the platform has it. */
  setpriv: string | undefined
  observe: Observe
  /** The sidecar's review API for document prompts; undefined without --sidecar and --agent-token. */
  review: DocReview | undefined
}

export interface TurnWorker {
  /** Reports replies left undelivered by an earlier run, then takes turns, the topic first when given. */
  start(firstPrompt: string | undefined): void
  /** Tells the worker the inbox has a new item. */
  wake(): void
  /** Kills the running agent, or stops the rest of the reply being posted; false when neither. */
  cancel(): boolean
  readonly running: RunningTurn | undefined
  /** Resolves once no turn is in progress (at once when none is); after `life` aborts, once it is reaped. */
  settled(): Promise<void>
}

/**
 * Runs the agent for `turn` in the pinned session, under the parent-death guard; its process group
 * is recorded in the state file so a later start can kill what is left of it if this process dies.
 */
function runAgent(
  o: TurnWorkerOptions,
  turn: number,
  prompt: string,
  abort: AbortSignal,
  onOutput: (bytes: number) => void,
): Promise<TurnResult> {
  const { config, chat, timing } = o
  const state = chat.state
  const root = config.stateRoot
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
  return runTurn({
    argv: withParentDeathGuard(argv, o.setpriv),
    env: o.agentEnv,
    ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
    signal: abort,
    timeoutMs: config.turnTimeoutMs,
    graceMs: timing.graceMs,
    maxOutputBytes: config.maxReplyBytes,
    spillPath: rawOutputPath(root, state.groupId, turn),
    tailBytes: 4096,
    livenessMs: timing.livenessMs,
    onStart: (pgid) => {
      if (pgid === undefined) return
      // Recorded so a later start can kill what is left of this turn if this process dies.
      const leaderStart = processStartTicks(pgid)
      state.runningTurn = {
        turn,
        pgid,
        loopPid: process.pid,
        ...(leaderStart === undefined ? {} : { leaderStart }),
      }
      try {
        saveChatState(root, state)
      } catch (err) {
        // The turn runs and is reaped by this process either way; only the after-crash sweep loses it.
        o.log(`could not record turn ${turn}'s process group: ${err instanceof Error ? err.message : String(err)}`)
      }
    },
    onOutput,
    onLiveness: (l) =>
      o.log(`turn ${turn} still running: ${formatDuration(l.elapsedMs)}, ${l.outputBytes} bytes of output`),
  })
}

/** Nothing unredacted stays on disk: the raw spill is redacted into the saved output. */
async function keepRedactedOutput(o: TurnWorkerOptions, turn: number, result: TurnResult): Promise<void> {
  if (result.spilledTo === undefined) return
  const saved = savedOutputPath(o.config.stateRoot, o.chat.state.groupId, turn)
  try {
    await saveRedactedOutput(result.spilledTo, saved, o.redactor)
    result.spilledTo = saved
  } catch (err) {
    o.log(`turn ${turn}: could not save its output: ${err instanceof Error ? err.message : String(err)}`)
    delete result.spilledTo
    result.unkeptBytes = result.droppedStdoutBytes
  }
}

export function createTurnWorker(o: TurnWorkerOptions): TurnWorker {
  const { config, chat, speaker } = o
  const state = chat.state
  const root = config.stateRoot
  let running: RunningTurn | undefined
  let runningAbort: AbortController | undefined
  let current: Promise<void> | undefined
  let wake: (() => void) | undefined
  const delivery = createReplyDelivery({
    config,
    state,
    speaker,
    redactor: o.redactor,
    audit: o.audit,
    life: o.life,
    log: o.log,
    onError: o.onError,
  })
  const { auditTurn } = delivery

  /** Runs the agent as turn `turn`; undefined when the chat stopped meanwhile (the turn is audited). */
  async function agentTurn(
    item: Queued | undefined,
    turn: number,
    prompt: string,
    plan: Extract<TurnPlan, { kind: 'agent' }>,
    abort: AbortSignal,
  ): Promise<TurnReport | undefined> {
    await o.observe({ type: 'turn-started', turn, prompt })
    o.log(`turn ${turn} started`)
    const result = await runAgent(o, turn, plan.agentPrompt, abort, (bytes) => {
      if (running !== undefined) running.outputBytes = bytes
    })
    await keepRedactedOutput(o, turn, result)
    state.turns = turn
    delete state.runningTurn
    if (result.spawnError === undefined) state.sessionStarted = true
    saveChatState(root, state)
    o.log(`turn ${turn} ${result.outcome} after ${formatDuration(result.durationMs)}`)
    await o.observe({ type: 'turn-ended', turn, outcome: result.outcome })
    if (o.life.aborted) {
      await auditTurn(item, turn, `${result.outcome}: the chat stopped`)
      return undefined
    }
    return plan.report(result, turn)
  }

  async function runOne(item: Queued | undefined, prompt: string): Promise<void> {
    const turn = state.turns + 1
    const abort = new AbortController()
    const onLife = () => abort.abort()
    o.life.addEventListener('abort', onLife, { once: true })
    running = { turn, startedAt: Date.now(), outputBytes: 0, phase: { kind: 'running' }, item }
    runningAbort = abort
    try {
      if (item !== undefined) await speaker.setReceipt(item, 'running')
      const plan = await planTurn(
        { review: o.review, redactor: o.redactor, turnTimeoutMs: config.turnTimeoutMs, host: config.host },
        prompt,
        abort.signal,
      )
      const report = plan.kind === 'answer' ? plan.report : await agentTurn(item, turn, prompt, plan, abort.signal)
      if (report === undefined) return
      // From here `cancel` stops the rest of the reply.
      const posting = new AbortController()
      const onLifePosting = () => posting.abort()
      o.life.addEventListener('abort', onLifePosting, { once: true })
      runningAbort = posting
      try {
        await delivery.deliver(item, turn, report.text, report.receipt, posting.signal, (phase) => {
          if (running !== undefined) running.phase = phase
        })
      } finally {
        o.life.removeEventListener('abort', onLifePosting)
      }
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
    for (const file of removeRawOutputs(root, state.groupId)) o.log(`removed ${file}, left by a turn that never ended`)
    current = delivery.reportEarlier().catch((err: unknown) => o.onError('undelivered notice', err))
    await current
    current = undefined
    if (firstPrompt !== undefined && !o.life.aborted) await guarded(undefined, firstPrompt)
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
      if (running === undefined || runningAbort === undefined || runningAbort.signal.aborted) return false
      o.log(
        running.phase.kind === 'running'
          ? `cancel: killing turn ${running.turn}`
          : `cancel: stopping the rest of turn ${running.turn}'s reply`,
      )
      runningAbort.abort()
      return true
    },
    get running() {
      return running
    },
    settled: () => current ?? Promise.resolve(),
  }
}
