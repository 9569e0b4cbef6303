/**
 * The running chat, wired from its parts: the events reader (and browser consoles) feed the gate;
 * control phrases are answered at once, prompts queue for the turn worker; the speaker posts
 * redacted, chunked output through the poster's membership check; shutdown ends it once.
 * Resolves to the exit code.
 */
import { effectiveAllowlist } from '../agent/argv.ts'
import { findSetpriv } from '../agent/parent-death.ts'
import type { ChatConfig } from '../config.ts'
import { chatIdForGroup, consoleInputFromBody, isEnvelopeBody } from '../console/chat-envelopes.ts'
import type { ConsolePort } from '../console/console-port.ts'
import { parseControl } from '../control.ts'
import { ChatError, exitCodeOf } from '../errors.ts'
import { EXIT_CODES, type ExitCode } from '../exit-codes.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import type { InboundMessage } from '../signal/port.ts'
import { createAuditLog, type AuditEntry } from '../state/audit-log.ts'
import type { ChatEvent, ChatTiming } from './chat-events.ts'
import type { DaemonHealth } from './daemon-health.ts'
import { readEvents } from './events-reader.ts'
import { gate } from './gate.ts'
import { createInbox } from './inbox.ts'
import { announcement, formatDuration, statusText } from './messages.ts'
import { auditSource, type Origin, type Queued } from './origin.ts'
import { createOutputSender } from './output-sender.ts'
import { createPoster } from './poster.ts'
import { createShutdown } from './shutdown.ts'
import { createSpeaker } from './speaker.ts'
import { createTurnWorker } from './turn-worker.ts'

export { DEFAULT_TIMING, type ChatEvent, type ChatTiming } from './chat-events.ts'

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
  const audit = createAuditLog(config.stateRoot, state.groupId, redactor)
  const observe = async (event: ChatEvent) => {
    await deps.observe?.(event)
  }

  function onBackgroundError(what: string, err: unknown): void {
    if (err instanceof ChatError && err.code === 'CHAT_DAEMON_LOST') {
      void shutdown.end(EXIT_CODES.daemonLost, err.message)
      return
    }
    if (!life.signal.aborted) log(`${what} failed: ${err instanceof Error ? err.message : String(err)}`)
  }

  const poster = createPoster({
    signal,
    groupId: state.groupId,
    allowed,
    health,
    membershipBaseMs: timing.membershipBaseMs,
    membershipMaxMs: timing.membershipMaxMs,
    paceBurst: timing.paceBurst,
    paceMs: timing.paceMs,
    log,
    onWithheld: (reason, remaining) => observe({ type: 'withheld', reason, remaining }),
    onPosted: (text, timestamp, file) =>
      observe({ type: 'posted', text, timestamp, ...(file === undefined ? {} : { file }) }),
  })
  const speaker = createSpeaker({
    signal,
    groupId: state.groupId,
    health,
    redactor,
    poster,
    console: deps.console,
    observe,
    life: life.signal,
    noticeStallMs: config.deliveryTimeoutMs,
    log,
    onError: onBackgroundError,
  })
  const worker = createTurnWorker({
    config,
    chat,
    timing,
    agentEnv: deps.agentEnv,
    cwd: deps.cwd,
    inbox,
    redactor,
    speaker,
    audit,
    setpriv: findSetpriv(deps.agentEnv),
    observe,
    log,
    life: life.signal,
    onError: onBackgroundError,
  })
  const outputs = createOutputSender({
    root: config.stateRoot,
    groupId: state.groupId,
    host: config.host,
    maxBytes: config.maxAttachmentBytes,
    redactor,
    speaker,
    life: life.signal,
    stallMs: config.deliveryTimeoutMs,
    log,
    onError: onBackgroundError,
  })
  const shutdown = createShutdown({
    life,
    inbox,
    worker,
    signal,
    groupId: state.groupId,
    allowed,
    console: deps.console,
    observe,
    log,
  })

  function status(): string {
    const check = poster.lastCheck()
    const running = worker.running
    return statusText({
      sessionId: state.sessionId,
      turn: state.turns,
      running:
        running === undefined
          ? undefined
          : {
              turn: running.turn,
              elapsedMs: Date.now() - running.startedAt,
              outputBytes: running.outputBytes,
              phase: running.phase,
            },
      allowlist,
      queued: inbox.size,
      capacity: inbox.capacity,
      membership: check === undefined ? undefined : { agoMs: Date.now() - check.at, ok: check.ok },
      auditLog: audit.path,
    })
  }

  /** Control phrases first, then the queue: the same path for phones and consoles. */
  function record(
    origin: Origin,
    event: AuditEntry['event'],
    text: string,
    turn: number | undefined,
    outcome: string,
  ): Promise<void> {
    return audit.record({ event, ...auditSource(origin), sessionId: state.sessionId, turn, outcome, text })
  }

  async function onAccepted(text: string, origin: Origin): Promise<void> {
    const action = parseControl(text)
    const runningTurn = worker.running?.turn
    if (action.kind === 'status') {
      await record(origin, 'control', text, runningTurn, 'status answered')
      return speaker.answer(origin, status())
    }
    if (action.kind === 'cancel') {
      const phase = worker.running?.phase.kind
      const cancelled = worker.cancel()
      await record(
        origin,
        'control',
        text,
        runningTurn,
        !cancelled ? 'nothing to cancel' : phase === 'running' ? 'turn cancelled' : 'rest of the reply cancelled',
      )
      if (!cancelled) speaker.answer(origin, 'nothing is running.')
      return
    }
    if (action.kind === 'output') {
      await record(origin, 'control', text, runningTurn, outputs.request(origin, action.turn))
      return
    }
    if (action.kind === 'stop') {
      await record(origin, 'control', text, runningTurn, 'chat ended')
      log(`${action.phrase} from an operator: ending the chat`)
      void shutdown.end(EXIT_CODES.ok, undefined, { leave: true })
      return
    }
    const item: Queued = {
      text: action.text,
      author: origin.kind === 'signal' ? origin.author : 'console',
      timestamp: origin.kind === 'signal' ? origin.timestamp : 0,
      origin,
      receipt: undefined,
    }
    const offer = inbox.offer(item)
    await record(
      origin,
      'prompt',
      action.text,
      undefined,
      offer.taken ? `queued (position ${offer.position})` : 'refused: queue full',
    )
    if (!offer.taken) {
      log('queue full: a message was not taken')
      if (origin.kind === 'console')
        deps.console?.emit({
          kind: 'chat-status',
          ref: origin.ref,
          state: 'rejected',
          text: `queue full (${inbox.capacity} waiting), message not taken`,
        })
      else speaker.answer(origin, `queue full (${inbox.capacity} waiting), message not taken: send it again later.`)
      return
    }
    deps.console?.emit({
      kind: 'chat-prompt',
      text: await redactor.redact(action.text),
      from: origin.kind === 'signal' ? 'phone' : 'console',
      ref: origin.kind === 'signal' ? String(origin.timestamp) : origin.ref,
    })
    if (origin.kind === 'console') speaker.tellGroup(`[console] ${action.text}`)
    await speaker.setReceipt(item, 'queued')
    worker.wake()
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
    await onAccepted(text, {
      kind: 'signal',
      author: verdict.sender,
      timestamp: msg.timestamp as number,
      device: msg.sourceDevice,
    }) // the gate refuses a message without one
  }

  async function consoleInputs(port: ConsolePort): Promise<void> {
    for await (const input of port.inputs(life.signal)) {
      await onAccepted(input.text, { kind: 'console', ref: input.ref }).catch((err: unknown) =>
        onBackgroundError('console input', err),
      )
    }
  }

  const onStop = () =>
    void shutdown.end(EXIT_CODES.ok, `stopping (local signal); resume later with --resume ${state.groupId}`)
  if (deps.stop?.aborted) onStop()
  deps.stop?.addEventListener('abort', onStop, { once: true })

  void readEvents({
    signal,
    health,
    life: life.signal,
    observe,
    log,
    onMessage: onInbound,
    onError: onBackgroundError,
    onFatal: (code, why) => void shutdown.end(code, why),
  })
  if (deps.console !== undefined)
    void consoleInputs(deps.console).catch((err: unknown) => onBackgroundError('console', err))
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
      leftovers: chat.leftovers.filter((l) => l.groupId === state.groupId && l.result === 'killed').map((l) => l.turn),
    })
    // Nothing runs before the group has seen the allowlist: an announcement that cannot be posted
    // within the delivery timeout ends the chat.
    const posted = await speaker.say(text, life.signal, undefined, { stallMs: config.deliveryTimeoutMs })
    if (posted.kind === 'stalled')
      void shutdown.end(
        EXIT_CODES.setup,
        `could not post the announcement for ${formatDuration(config.deliveryTimeoutMs)} (${posted.reason}); nothing was run`,
      )
    else if (posted.kind === 'posted') worker.start(chat.resumed ? undefined : state.topic)
  } catch (err) {
    void shutdown.end(
      exitCodeOf(err) === EXIT_CODES.daemonLost ? EXIT_CODES.daemonLost : EXIT_CODES.setup,
      (err as Error).message,
    )
  }
  const code = await shutdown.finished
  deps.stop?.removeEventListener('abort', onStop)
  return code
}
