/**
 * The running chat: reads the events stream, gates each message, answers control phrases at once,
 * queues prompts, runs one turn at a time, and posts redacted, chunked output after re-checking the
 * group's membership before every chunk. Resolves to the exit code.
 */
import { buildTurnArgv, effectiveAllowlist } from '../agent/argv.ts'
import { runTurn, type TurnResult } from '../agent/turn-runner.ts'
import type { ChatConfig } from '../config.ts'
import { parseControl } from '../control.ts'
import { ChatError, exitCodeOf } from '../errors.ts'
import { EXIT_CODES, type ExitCode } from '../exit-codes.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import { parseInbound } from '../signal/inbound.ts'
import { saveChatState } from '../state/chat-state.ts'
import { backoffDelay, pause } from './backoff.ts'
import { chunkReply } from './chunker.ts'
import type { DaemonHealth } from './daemon-health.ts'
import { gate, type GateRejection } from './gate.ts'
import { createInbox, type InboxItem } from './inbox.ts'
import { checkMembership } from './membership.ts'
import { announcement, failureText, formatDuration, lastBytes, statusText } from './messages.ts'
import { advanceReceipt, RECEIPT_EMOJI, type ReceiptState } from './receipts.ts'
import { createSentTimestamps } from './sent-timestamps.ts'

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
  | { type: 'ignored'; reason: GateRejection }
  | { type: 'posted'; text: string; timestamp: number }
  | { type: 'withheld'; reason: string; remaining: number }
  | { type: 'receipt'; target: number; state: ReceiptState }
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
}

interface Running {
  turn: number
  startedAt: number
  outputBytes: number
  abort: AbortController
  item: Queued
}

type Queued = InboxItem & { receipt: ReceiptState | undefined }

/** Runs the chat until an operator stops it, the local process is told to stop, or the daemon is lost. */
export async function runChatLoop(config: ChatConfig, chat: PreparedChat, deps: ChatLoopDeps): Promise<ExitCode> {
  const { signal, account, state } = chat
  const { redactor, health, timing, log } = deps
  const sent = createSentTimestamps()
  /** Sends not answered yet: the echo of one can arrive before its timestamp is known. */
  const inflight = new Set<Promise<number>>()
  const inbox = createInbox(config.inboxCapacity)
  const operators = new Set(config.operators)
  const allowed = new Set([...config.operators, account])
  const allowlist = effectiveAllowlist(config.agent, config.allowTools, config.allTools)
  const life = new AbortController() // aborted when the loop ends, for any reason
  let running: Running | undefined
  let membership: { at: number; ok: boolean } | undefined
  let wake: (() => void) | undefined
  let finish: ((code: ExitCode) => void) | undefined
  const finished = new Promise<ExitCode>((resolve) => (finish = resolve))
  let ending: Promise<void> | undefined

  const observe = async (event: ChatEvent) => {
    await deps.observe?.(event)
  }

  /** Posts `text` (already redacted) chunk by chunk, each after a passing membership check. */
  async function post(text: string, abort: AbortSignal): Promise<boolean> {
    const chunks = chunkReply(text)
    for (const [i, chunk] of chunks.entries()) {
      for (let attempt = 0; ; attempt++) {
        if (abort.aborted) return false
        const m = await health.call('listGroups', () => signal.groupMembership(state.groupId), abort)
        const verdict = checkMembership(m, allowed)
        membership = { at: Date.now(), ok: verdict.ok }
        if (verdict.ok) break
        const delay = backoffDelay(attempt, { baseMs: timing.membershipBaseMs, maxMs: timing.membershipMaxMs })
        log(`membership check failed (${verdict.reason}): withholding ${chunks.length - i} message(s); checking again in ${formatDuration(delay)}`)
        await observe({ type: 'withheld', reason: verdict.reason, remaining: chunks.length - i })
        await pause(delay, abort)
      }
      const sending = health.call('send', () => signal.sendGroup(state.groupId, chunk), abort)
      inflight.add(sending)
      const timestamp = await sending.finally(() => inflight.delete(sending))
      sent.remember(timestamp)
      await observe({ type: 'posted', text: chunk, timestamp })
    }
    return true
  }

  /** Posts and logs instead of throwing: a failed notice must not end the chat. */
  function postSoon(text: string): void {
    void redactor
      .redact(text)
      .then((clean) => post(clean, life.signal))
      .catch((err: unknown) => onBackgroundError('post', err))
  }

  async function setReceipt(item: Queued, to: ReceiptState): Promise<void> {
    item.receipt = advanceReceipt(item.receipt, to)
    try {
      await health.call('sendReaction', () => signal.react(state.groupId, { author: item.author, timestamp: item.timestamp }, RECEIPT_EMOJI[to]), life.signal)
      await observe({ type: 'receipt', target: item.timestamp, state: to })
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
    return statusText({
      sessionId: state.sessionId,
      turn: state.turns,
      running: running === undefined ? undefined : { turn: running.turn, elapsedMs: Date.now() - running.startedAt, outputBytes: running.outputBytes },
      allowlist,
      queued: inbox.size,
      capacity: inbox.capacity,
      membership: membership === undefined ? undefined : { agoMs: Date.now() - membership.at, ok: membership.ok },
    })
  }

  async function onInbound(data: string): Promise<void> {
    const msg = parseInbound(data)
    if (msg === undefined) return
    if (msg.origin === 'sync' && inflight.size > 0) await Promise.allSettled(inflight)
    const verdict = gate(msg, { account, groupId: state.groupId, operators, isOwnPost: (t) => sent.has(t) })
    if (!verdict.accepted) {
      if (verdict.reason !== 'other-group' && verdict.reason !== 'own-post') log(`ignored a message: ${verdict.reason}`)
      await observe({ type: 'ignored', reason: verdict.reason })
      return
    }
    const action = parseControl(verdict.text)
    if (action.kind === 'status') return postSoon(status())
    if (action.kind === 'cancel') {
      if (running === undefined) return postSoon('nothing is running.')
      log(`cancel: killing turn ${running.turn}`)
      running.abort.abort()
      return
    }
    if (action.kind === 'stop') {
      log(`${action.phrase} from an operator: ending the chat`)
      void end(EXIT_CODES.ok, undefined, { leave: true })
      return
    }
    const item: Queued = { text: action.text, author: verdict.sender, timestamp: msg.timestamp, receipt: undefined }
    const offer = inbox.offer(item)
    if (!offer.taken) {
      log('queue full: a message was not taken')
      return postSoon(`queue full (${inbox.capacity} waiting), message not taken: send it again later.`)
    }
    await setReceipt(item, 'queued')
    wake?.()
  }

  async function runOne(item: Queued | undefined, prompt: string): Promise<void> {
    const turn = state.turns + 1
    const abort = new AbortController()
    const onLife = () => abort.abort()
    life.signal.addEventListener('abort', onLife, { once: true })
    running = { turn, startedAt: Date.now(), outputBytes: 0, abort, item: item ?? { text: prompt, author: account, timestamp: 0, receipt: undefined } }
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
      if (result.outcome === 'cancelled') {
        if (item !== undefined) await setReceipt(item, 'cancelled')
        return postSoon(`turn ${turn} cancelled; the chat goes on.`)
      }
      if (result.outcome === 'ok') {
        const cut = result.droppedStdoutBytes > 0 ? `\n[… ${result.droppedStdoutBytes} more bytes of output not posted]` : ''
        const reply = (await redactor.redact(result.stdout)) + cut
        if (item !== undefined) await setReceipt(item, 'done')
        await post(reply.trim() === '' ? `turn ${turn}: (no output)` : reply, abort.signal)
        return
      }
      const how =
        result.outcome === 'timeout'
          ? `killed after the turn timeout (${formatDuration(config.turnTimeoutMs ?? 0)})`
          : result.spawnError !== undefined
            ? `the agent could not start (${result.spawnError})`
            : result.signal !== null
              ? `the agent was killed by ${result.signal}`
              : `the agent exited with status ${result.exitCode}`
      if (item !== undefined) await setReceipt(item, 'failed')
      const tail = lastBytes(await redactor.redact(result.tail), 1200)
      await post(await redactor.redact(failureText(turn, how, tail)), abort.signal)
    } finally {
      life.signal.removeEventListener('abort', onLife)
      running = undefined
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
        for await (const data of stream) {
          await onInbound(data).catch((err: unknown) => onBackgroundError('message handling', err))
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

  async function turnSettled(): Promise<void> {
    for (;;) {
      if (running === undefined) return
      await pause(20)
    }
  }

  /** Ends the chat once: kills and reaps the running turn, settles receipts, optionally leaves. */
  function end(code: ExitCode, why: string | undefined, options: { leave?: boolean } = {}): Promise<void> {
    ending ??= (async () => {
      if (why !== undefined) log(why)
      const turn = running
      const waiting = inbox.drain() as Queued[]
      life.abort()
      // The turn's runner kills the tree on abort; wait for it to be reaped before going on.
      await turnSettled()
      if (code !== EXIT_CODES.daemonLost) {
        for (const item of [...(turn?.item.timestamp ? [turn.item] : []), ...waiting]) {
          if (item.receipt !== undefined && item.receipt !== 'cancelled' && item.receipt !== 'done' && item.receipt !== 'failed') {
            item.receipt = advanceReceipt(item.receipt, 'cancelled')
            const reacted = await signal.react(state.groupId, { author: item.author, timestamp: item.timestamp }, RECEIPT_EMOJI.cancelled).then(() => true, () => false)
            if (reacted) await observe({ type: 'receipt', target: item.timestamp, state: 'cancelled' })
          }
        }
      }
      if (options.leave === true) {
        try {
          const m = await signal.groupMembership(state.groupId)
          if (checkMembership(m, allowed).ok) sent.remember(await signal.sendGroup(state.groupId, 'stopped: the agent is killed and this chat is over. Bye.'))
          await signal.quitGroup(state.groupId)
          log('left the group')
        } catch (err) {
          log(`could not leave the group cleanly: ${(err as Error).message}`)
        }
      }
      finish?.(code)
    })()
    return ending
  }

  const onStop = () => void end(EXIT_CODES.ok, `stopping (local signal); resume later with --resume ${state.groupId}`)
  if (deps.stop?.aborted) onStop()
  deps.stop?.addEventListener('abort', onStop, { once: true })

  void events()
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
    await post(await redactor.redact(text), life.signal)
    void worker(chat.resumed ? undefined : state.topic).catch((err: unknown) => {
      void end(exitCodeOf(err) === EXIT_CODES.daemonLost ? EXIT_CODES.daemonLost : EXIT_CODES.setup, `turn loop failed: ${(err as Error).message}`)
    })
  } catch (err) {
    void end(exitCodeOf(err) === EXIT_CODES.daemonLost ? EXIT_CODES.daemonLost : EXIT_CODES.setup, (err as Error).message)
  }
  const code = await finished
  deps.stop?.removeEventListener('abort', onStop)
  return code
}
