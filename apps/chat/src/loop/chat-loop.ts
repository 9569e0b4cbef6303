/**
 * The running chat: reads the events stream (and browser consoles), gates each message, answers
 * control phrases at once, queues prompts, runs one turn at a time, and posts redacted, chunked
 * output after re-checking the group's membership before every chunk. Resolves to the exit code.
 */
import { buildTurnArgv, effectiveAllowlist } from '../agent/argv.ts'
import { runTurn, type TurnResult } from '../agent/turn-runner.ts'
import type { ChatConfig } from '../config.ts'
import { chatIdForGroup, consoleInputFromBody, isEnvelopeBody } from '../console/chat-envelopes.ts'
import type { ConsolePort } from '../console/console-port.ts'
import { parseControl } from '../control.ts'
import { ChatError, exitCodeOf } from '../errors.ts'
import { EXIT_CODES, type ExitCode } from '../exit-codes.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import type { InboundMessage } from '../signal/port.ts'
import { saveChatState } from '../state/chat-state.ts'
import { pause } from './backoff.ts'
import type { DaemonHealth } from './daemon-health.ts'
import { gate, type GateRejection } from './gate.ts'
import { createInbox, type InboxItem } from './inbox.ts'
import { checkMembership } from './membership.ts'
import { announcement, formatDuration, statusText } from './messages.ts'
import { createPoster } from './poster.ts'
import { advanceReceipt, isFinalReceipt, RECEIPT_EMOJI, type ReceiptState } from './receipts.ts'
import { reportTurn } from './turn-report.ts'

/** Timings, all overridable by tests. */
export interface ChatTiming {
  backoffBaseMs: number
  backoffMaxMs: number
  membershipBaseMs: number
  membershipMaxMs: number
  graceMs: number
  livenessMs: number
}

export const DEFAULT_TIMING: ChatTiming = {
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  membershipBaseMs: 1000,
  membershipMaxMs: 60_000,
  graceMs: 3000,
  livenessMs: 30_000,
}

/** What the loop reports to an observer (the terminal, tests). */
export type ChatEvent =
  | { type: 'ready'; groupId: string; sessionId: string }
  | { type: 'ignored'; reason: GateRejection | 'envelope-body' }
  | { type: 'posted'; text: string; timestamp: number }
  | { type: 'withheld'; reason: string; remaining: number }
  /** `target`: the Signal timestamp of the message, or the console input's ref. */
  | { type: 'receipt'; target: number | string; state: ReceiptState }
  | { type: 'turn-started'; turn: number; prompt: string }
  | { type: 'turn-ended'; turn: number; outcome: TurnResult['outcome'] }
  | { type: 'events-connected' }

export interface ChatLoopDeps {
  redactor: Redactor
  health: DaemonHealth
  agentEnv: NodeJS.ProcessEnv
  log(line: string): void
  timing: ChatTiming
  stop?: AbortSignal | undefined
  cwd?: string | undefined
  observe?: ((event: ChatEvent) => void | Promise<void>) | undefined
  console?: ConsolePort | undefined
}

/** Where an accepted message came from: a Signal message (reactions) or a console line (statuses). */
type Origin = { kind: 'signal'; author: string; timestamp: number } | { kind: 'console'; ref: string }
type Queued = InboxItem & { origin: Origin; receipt: ReceiptState | undefined }

/** Runs the chat until an operator stops it, the local process is told to stop, or the daemon is lost. */
export async function runChatLoop(config: ChatConfig, chat: PreparedChat, deps: ChatLoopDeps): Promise<ExitCode> {
  const { signal, account, state } = chat
  const { redactor, health, timing, log } = deps
  const inbox = createInbox(config.inboxCapacity)
  const operators = new Set(config.operators)
  const allowed = new Set([...config.operators, account])
  const chatId = chatIdForGroup(state.groupId)
  const allowlist = effectiveAllowlist(config.agent, config.allowTools, config.allTools)
  const life = new AbortController() // aborted when the loop ends, for any reason
  let running: { turn: number; startedAt: number; outputBytes: number; item: Queued | undefined } | undefined
  let runningAbort: AbortController | undefined
  let wake: (() => void) | undefined
  let finish: ((code: ExitCode) => void) | undefined
  const finished = new Promise<ExitCode>((resolve) => (finish = resolve))
  let ending: Promise<void> | undefined

  const observe = async (event: ChatEvent) => {
    await deps.observe?.(event)
  }
  const poster = createPoster({
    signal,
    groupId: state.groupId,
    allowed,
    health,
    membershipBaseMs: timing.membershipBaseMs,
    membershipMaxMs: timing.membershipMaxMs,
    log,
    onWithheld: (reason, remaining) => observe({ type: 'withheld', reason, remaining }),
    onPosted: (text, timestamp) => observe({ type: 'posted', text, timestamp }),
  })

  /** Tells the group and every console; `text` is redacted here. */
  async function say(text: string, abort: AbortSignal, turn?: number): Promise<void> {
    const clean = await redactor.redact(text)
    deps.console?.emit({ kind: 'chat-reply', text: clean, turn })
    await poster.post(clean, abort)
  }

  /** Posts a short notice to the group in the background (redacted); failures are logged. */
  function tellGroup(text: string): void {
    void redactor
      .redact(text)
      .then((clean) => poster.post(clean, life.signal))
      .catch((err: unknown) => onBackgroundError('post', err))
  }

  /** Answers one origin only: the group for phones, the console line for a console. */
  function answer(origin: Origin, text: string): void {
    if (origin.kind === 'signal') return tellGroup(text)
    void redactor.redact(text).then((clean) => deps.console?.emit({ kind: 'chat-status', ref: origin.ref, state: 'info', text: clean }))
  }

  async function setReceipt(item: Queued, to: ReceiptState): Promise<void> {
    item.receipt = advanceReceipt(item.receipt, to)
    const origin = item.origin
    if (origin.kind === 'console') {
      deps.console?.emit({ kind: 'chat-status', ref: origin.ref, state: to })
      await observe({ type: 'receipt', target: origin.ref, state: to })
      return
    }
    try {
      await health.call('sendReaction', () => signal.react(state.groupId, { author: origin.author, timestamp: origin.timestamp }, RECEIPT_EMOJI[to]), life.signal)
      await observe({ type: 'receipt', target: origin.timestamp, state: to })
    } catch (err) {
      onBackgroundError('reaction', err)
    }
  }

  function onBackgroundError(what: string, err: unknown): void {
    if (err instanceof ChatError && err.code === 'CHAT_DAEMON_LOST') {
      void end(EXIT_CODES.daemonLost, err.message)
      return
    }
    if (!life.signal.aborted) log(`${what} failed: ${err instanceof Error ? err.message : String(err)}`)
  }

  function status(): string {
    const check = poster.lastCheck()
    return statusText({
      sessionId: state.sessionId,
      turn: state.turns,
      running: running === undefined ? undefined : { turn: running.turn, elapsedMs: Date.now() - running.startedAt, outputBytes: running.outputBytes },
      allowlist,
      queued: inbox.size,
      capacity: inbox.capacity,
      membership: check === undefined ? undefined : { agoMs: Date.now() - check.at, ok: check.ok },
    })
  }

  /** Control phrases first, then the queue: the same path for phones and consoles. */
  async function onAccepted(text: string, origin: Origin): Promise<void> {
    const action = parseControl(text)
    if (action.kind === 'status') return answer(origin, status())
    if (action.kind === 'cancel') {
      if (running === undefined) return answer(origin, 'nothing is running.')
      log(`cancel: killing turn ${running.turn}`)
      runningAbort?.abort()
      return
    }
    if (action.kind === 'stop') {
      log(`${action.phrase} from an operator: ending the chat`)
      void end(EXIT_CODES.ok, undefined, { leave: true })
      return
    }
    const item: Queued = { text: action.text, author: origin.kind === 'signal' ? origin.author : 'console', timestamp: origin.kind === 'signal' ? origin.timestamp : 0, origin, receipt: undefined }
    const offer = inbox.offer(item)
    if (!offer.taken) {
      log('queue full: a message was not taken')
      if (origin.kind === 'console') deps.console?.emit({ kind: 'chat-status', ref: origin.ref, state: 'rejected', text: `queue full (${inbox.capacity} waiting), message not taken` })
      else answer(origin, `queue full (${inbox.capacity} waiting), message not taken: send it again later.`)
      return
    }
    deps.console?.emit({ kind: 'chat-prompt', text: await redactor.redact(action.text), from: origin.kind === 'signal' ? 'phone' : 'console', ref: origin.kind === 'signal' ? String(origin.timestamp) : origin.ref })
    if (origin.kind === 'console') tellGroup(`[console] ${action.text}`)
    await setReceipt(item, 'queued')
    wake?.()
  }

  async function onInbound(msg: InboundMessage): Promise<void> {
    if (msg.origin === 'sync') await poster.settled()
    const verdict = gate(msg, { account, groupId: state.groupId, operators, isOwnPost: poster.isOwnPost })
    if (!verdict.accepted) {
      if (verdict.reason !== 'other-group' && verdict.reason !== 'own-post') log(`ignored a message: ${verdict.reason}`)
      await observe({ type: 'ignored', reason: verdict.reason })
      return
    }
    let text = verdict.text
    if (isEnvelopeBody(text)) {
      // Machine traffic, never a prompt as such: only a whole chat-prompt/chat-control for this chat counts.
      try {
        text = consoleInputFromBody(text, chatId).text
      } catch (err) {
        log(`ignored an e2e-col body: ${(err as Error).message}`)
        await observe({ type: 'ignored', reason: 'envelope-body' })
        return
      }
    }
    await onAccepted(text, { kind: 'signal', author: verdict.sender, timestamp: msg.timestamp as number }) // the gate refuses a message without one
  }

  async function runOne(item: Queued | undefined, prompt: string): Promise<void> {
    const turn = state.turns + 1
    const abort = new AbortController()
    const onLife = () => abort.abort()
    life.signal.addEventListener('abort', onLife, { once: true })
    running = { turn, startedAt: Date.now(), outputBytes: 0, item }
    runningAbort = abort
    try {
      if (item !== undefined) await setReceipt(item, 'running')
      await observe({ type: 'turn-started', turn, prompt })
      log(`turn ${turn} started`)
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
        env: deps.agentEnv,
        ...(deps.cwd === undefined ? {} : { cwd: deps.cwd }),
        signal: abort.signal,
        timeoutMs: config.turnTimeoutMs,
        graceMs: timing.graceMs,
        maxOutputBytes: config.maxReplyBytes,
        tailBytes: 4096,
        livenessMs: timing.livenessMs,
        onLiveness: (l) => {
          if (running !== undefined) running.outputBytes = l.outputBytes
          log(`turn ${turn} still running: ${formatDuration(l.elapsedMs)}, ${l.outputBytes} bytes of output`)
        },
      })
      state.turns = turn
      if (result.spawnError === undefined) state.sessionStarted = true
      saveChatState(config.stateRoot, state)
      log(`turn ${turn} ${result.outcome} after ${formatDuration(result.durationMs)}`)
      await observe({ type: 'turn-ended', turn, outcome: result.outcome })
      if (life.signal.aborted) return
      const report = await reportTurn(result, turn, redactor, config.turnTimeoutMs)
      if (item !== undefined) await setReceipt(item, report.receipt)
      // A cancelled turn's notice is posted even though its own abort signal fired.
      await say(report.text, report.receipt === 'cancelled' ? life.signal : abort.signal, turn)
    } finally {
      life.signal.removeEventListener('abort', onLife)
      running = undefined
      runningAbort = undefined
    }
  }

  function guarded(item: Queued | undefined, prompt: string): Promise<void> {
    return runOne(item, prompt).catch((err: unknown) => onBackgroundError('turn', err))
  }

  async function worker(firstPrompt: string | undefined): Promise<void> {
    if (firstPrompt !== undefined) await guarded(undefined, firstPrompt)
    while (!life.signal.aborted) {
      const item = inbox.take() as Queued | undefined
      if (item === undefined) {
        await new Promise<void>((resolve) => {
          wake = resolve
          life.signal.addEventListener('abort', () => resolve(), { once: true })
        })
        wake = undefined
        continue
      }
      await guarded(item, item.text)
    }
  }

  async function events(): Promise<void> {
    while (!life.signal.aborted) {
      let what = 'events stream ended'
      try {
        const stream = await signal.openEvents(life.signal)
        health.succeeded()
        await observe({ type: 'events-connected' })
        for await (const msg of stream) {
          await onInbound(msg).catch((err: unknown) => onBackgroundError('message handling', err))
        }
      } catch (err) {
        if (life.signal.aborted) return
        if (err instanceof ChatError && err.code === 'CHAT_NOT_LINKED') return void end(EXIT_CODES.setup, err.message)
        what = err instanceof Error ? err.message : String(err)
      }
      if (life.signal.aborted) return
      let delay: number
      try {
        delay = health.failed(what)
      } catch (err) {
        return void end(EXIT_CODES.daemonLost, (err as Error).message)
      }
      log(`lost the events stream (${what}); reconnecting in ${formatDuration(delay)}`)
      await pause(delay, life.signal)
    }
  }

  async function consoleInputs(port: ConsolePort): Promise<void> {
    for await (const input of port.inputs(life.signal)) {
      await onAccepted(input.text, { kind: 'console', ref: input.ref }).catch((err: unknown) => onBackgroundError('console input', err))
    }
  }

  async function turnSettled(): Promise<void> {
    for (;;) {
      if (running === undefined) return
      await pause(20)
    }
  }

  /** Ends the chat once: kills and reaps the running turn, settles receipts, optionally leaves. */
  function end(code: ExitCode, why: string | undefined, options: { leave?: boolean } = {}): Promise<void> {
    ending ??= settle(code, why, options)
      .catch((err: unknown) => log(`shutdown incomplete: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => finish?.(code))
    return ending
  }

  async function settle(code: ExitCode, why: string | undefined, options: { leave?: boolean }): Promise<void> {
    if (why !== undefined) log(why)
    const current = running?.item
    const waiting = inbox.drain() as Queued[]
    life.abort()
    // The runner kills the tree on abort; wait until it is reaped before going on.
    await turnSettled()
    if (code !== EXIT_CODES.daemonLost) {
      for (const item of [...(current === undefined ? [] : [current]), ...waiting]) {
        if (item.receipt === undefined || isFinalReceipt(item.receipt)) continue
        item.receipt = advanceReceipt(item.receipt, 'cancelled')
        const origin = item.origin
        if (origin.kind === 'console') deps.console?.emit({ kind: 'chat-status', ref: origin.ref, state: 'cancelled' })
        else {
          const reacted = await signal.react(state.groupId, { author: origin.author, timestamp: origin.timestamp }, RECEIPT_EMOJI.cancelled).then(() => true, () => false)
          if (reacted) await observe({ type: 'receipt', target: origin.timestamp, state: 'cancelled' })
        }
      }
    }
    if (options.leave === true) {
      try {
        if (checkMembership(await signal.groupMembership(state.groupId), allowed).ok) {
          await signal.sendGroup(state.groupId, 'stopped: the agent is killed and this chat is over. Bye.')
        }
        await signal.quitGroup(state.groupId)
        log('left the group')
      } catch (err) {
        log(`could not leave the group cleanly: ${(err as Error).message}`)
      }
    }
    deps.console?.emit({ kind: 'chat-status', ref: undefined, state: 'info', text: 'the chat has ended' })
  }

  const onStop = () => void end(EXIT_CODES.ok, `stopping (local signal); resume later with --resume ${state.groupId}`)
  if (deps.stop?.aborted) onStop()
  deps.stop?.addEventListener('abort', onStop, { once: true })

  void events()
  if (deps.console !== undefined) void consoleInputs(deps.console).catch((err: unknown) => onBackgroundError('console', err))
  try {
    await observe({ type: 'ready', groupId: state.groupId, sessionId: state.sessionId })
    const text = announcement({
      host: config.host,
      topic: state.topic,
      agent: config.agent,
      sessionId: state.sessionId,
      allowlist,
      inboxCapacity: inbox.capacity,
      resumedAtTurn: chat.resumed ? state.turns : undefined,
    })
    await say(text, life.signal)
    void worker(chat.resumed ? undefined : state.topic)
  } catch (err) {
    void end(exitCodeOf(err) === EXIT_CODES.daemonLost ? EXIT_CODES.daemonLost : EXIT_CODES.setup, (err as Error).message)
  }
  const code = await finished
  deps.stop?.removeEventListener('abort', onStop)
  return code
}
