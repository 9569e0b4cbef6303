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
import { asChatError, exitCodeOf } from '../errors.ts'
import { EXIT_CODES, type ExitCode } from '../exit-codes.ts'
import type { Redactor } from '../redact/redactor.ts'
import type { PreparedChat } from '../setup.ts'
import type { InboundMessage } from '../signal/port.ts'
import { createAuditLog, type AuditLog } from '../state/audit-log.ts'
import { createAcceptor } from './acceptor.ts'
import type { ChatEvent, ChatTiming, Observe } from './chat-events.ts'
import type { DaemonHealth } from '../signal/daemon-health.ts'
import { readEvents } from './events-reader.ts'
import { gate } from './gate.ts'
import { createInbox, type Inbox } from './inbox.ts'
import { announcement, formatDuration, statusText } from './messages.ts'
import type { Origin } from './origin.ts'
import { createOutputSender, type OutputSender } from './output-sender.ts'
import { createPoster, type Poster } from './poster.ts'
import { createShutdown, type Shutdown } from './shutdown.ts'
import { createSpeaker, type Speaker } from './speaker.ts'
import { createTurnWorker, type TurnWorker } from './turn-worker.ts'
import { createSidecarReview } from '../review/sidecar-review.ts'

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

/** The parts that run for the chat's whole life. */
interface LoopParts {
  inbox: Inbox
  audit: AuditLog
  poster: Poster
  speaker: Speaker
  worker: TurnWorker
  outputs: OutputSender
}

/** What every part shares: the chat's life, its observer, and where a background failure goes. */
interface PartsContext {
  life: AbortSignal
  observe: Observe
  onError(what: string, err: unknown): void
}

function createParts(config: ChatConfig, chat: PreparedChat, deps: ChatLoopDeps, ctx: PartsContext): LoopParts {
  const { signal, account, state } = chat
  const { redactor, health, timing, log } = deps
  const { life, observe, onError } = ctx
  const inbox = createInbox(config.inboxCapacity)
  const audit = createAuditLog(config.stateRoot, state.groupId, redactor)
  const poster = createPoster({
    signal,
    groupId: state.groupId,
    allowed: new Set([...config.operators, account]),
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
    life,
    noticeStallMs: config.deliveryTimeoutMs,
    log,
    onError,
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
    review:
      config.sidecarUrl === undefined || config.agentToken === undefined
        ? undefined
        : createSidecarReview(config.sidecarUrl, config.agentToken),
    log,
    life,
    onError,
  })
  const outputs = createOutputSender({
    root: config.stateRoot,
    groupId: state.groupId,
    host: config.host,
    maxBytes: config.maxAttachmentBytes,
    redactor,
    speaker,
    life,
    stallMs: config.deliveryTimeoutMs,
    log,
    onError,
  })
  return { inbox, audit, poster, speaker, worker, outputs }
}

/** The answer to `status`, as of now. */
function statusOf(parts: LoopParts, sessionId: string, turns: number, allowlist: readonly string[]): string {
  const check = parts.poster.lastCheck()
  const running = parts.worker.running
  return statusText({
    sessionId,
    turn: turns,
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
    queued: parts.inbox.size,
    capacity: parts.inbox.capacity,
    membership: check === undefined ? undefined : { agoMs: Date.now() - check.at, ok: check.ok },
    auditLog: parts.audit.path,
  })
}

interface InboundOptions {
  account: string
  groupId: string
  operators: ReadonlySet<string>
  poster: Pick<Poster, 'settled' | 'isOwnPost'>
  observe: Observe
  log(line: string): void
  accept(text: string, origin: Origin): Promise<void>
}

/** A message from the daemon: through the gate, a console envelope unwrapped, then accepted. */
function createInboundHandler(o: InboundOptions): (msg: InboundMessage) => Promise<void> {
  const chatId = chatIdForGroup(o.groupId)
  return async (msg) => {
    if (msg.origin === 'sync') await o.poster.settled()
    const verdict = gate(msg, {
      account: o.account,
      groupId: o.groupId,
      operators: o.operators,
      isOwnPost: o.poster.isOwnPost,
    })
    if (!verdict.accepted) {
      if (verdict.reason !== 'other-group' && verdict.reason !== 'own-post')
        o.log(`ignored a message: ${verdict.reason}`)
      await o.observe({ type: 'ignored', reason: verdict.reason })
      return
    }
    let text = verdict.text
    if (isEnvelopeBody(text)) {
      // Machine traffic, never a prompt as such: only a whole chat-prompt/chat-control for this chat counts.
      try {
        text = consoleInputFromBody(text, chatId).text
      } catch (err) {
        o.log(`ignored an e2e-col body: ${(err as Error).message}`)
        await o.observe({ type: 'ignored', reason: 'envelope-body' })
        return
      }
    }
    await o.accept(text, {
      kind: 'signal',
      author: verdict.sender,
      timestamp: msg.timestamp as number,
      device: msg.sourceDevice,
    }) // the gate refuses a message without one
  }
}

/**
 * Nothing runs before the group has seen the allowlist: an announcement that cannot be posted
 * within the delivery timeout ends the chat. Once posted, the worker starts (the topic first).
 */
async function announceAndStart(
  config: ChatConfig,
  chat: PreparedChat,
  parts: LoopParts,
  ctx: { life: AbortSignal; observe: Observe; shutdown: Shutdown; allowlist: readonly string[] },
): Promise<void> {
  const { state } = chat
  try {
    await ctx.observe({ type: 'ready', groupId: state.groupId, sessionId: state.sessionId })
    const text = announcement({
      host: config.host,
      topic: state.topic,
      agent: config.agent,
      sessionId: state.sessionId,
      allowlist: ctx.allowlist,
      inboxCapacity: parts.inbox.capacity,
      resumedAtTurn: chat.resumed ? state.turns : undefined,
      leftovers: chat.leftovers.filter((l) => l.groupId === state.groupId && l.result === 'killed').map((l) => l.turn),
    })
    const posted = await parts.speaker.say(text, ctx.life, undefined, { stallMs: config.deliveryTimeoutMs })
    if (posted.kind === 'stalled')
      void ctx.shutdown.end(
        EXIT_CODES.setup,
        `could not post the announcement for ${formatDuration(config.deliveryTimeoutMs)} (${posted.reason}); nothing was run`,
      )
    else if (posted.kind === 'posted') parts.worker.start(chat.resumed ? undefined : state.topic)
  } catch (err) {
    void ctx.shutdown.end(
      exitCodeOf(err) === EXIT_CODES.daemonLost ? EXIT_CODES.daemonLost : EXIT_CODES.setup,
      (err as Error).message,
    )
  }
}

/** Runs the chat until an operator stops it, the local process is told to stop, or the daemon is lost. */
export async function runChatLoop(config: ChatConfig, chat: PreparedChat, deps: ChatLoopDeps): Promise<ExitCode> {
  const { signal, account, state } = chat
  const { health, log } = deps
  const allowlist = effectiveAllowlist(config.agent, config.allowTools, config.allTools)
  const life = new AbortController() // aborted when the loop ends, for any reason
  const observe = async (event: ChatEvent) => {
    await deps.observe?.(event)
  }

  // Bound late: the parts report to it, and shutdown needs the parts (it is called only after both exist).
  function onBackgroundError(what: string, err: unknown): void {
    if (asChatError(err)?.code === 'CHAT_DAEMON_LOST') {
      void shutdown.end(EXIT_CODES.daemonLost, (err as Error).message)
      return
    }
    if (!life.signal.aborted) log(`${what} failed: ${err instanceof Error ? err.message : String(err)}`)
  }

  const parts = createParts(config, chat, deps, { life: life.signal, observe, onError: onBackgroundError })
  const shutdown = createShutdown({
    life,
    inbox: parts.inbox,
    worker: parts.worker,
    signal,
    groupId: state.groupId,
    allowed: new Set([...config.operators, account]),
    console: deps.console,
    observe,
    log,
  })
  const accept = createAcceptor({
    sessionId: state.sessionId,
    inbox: parts.inbox,
    worker: parts.worker,
    speaker: parts.speaker,
    outputs: parts.outputs,
    audit: parts.audit,
    redactor: deps.redactor,
    console: deps.console,
    status: () => statusOf(parts, state.sessionId, state.turns, allowlist),
    stopChat: () => void shutdown.end(EXIT_CODES.ok, undefined, { leave: true }),
    log,
  })

  async function consoleInputs(port: ConsolePort): Promise<void> {
    for await (const input of port.inputs(life.signal)) {
      await accept(input.text, { kind: 'console', ref: input.ref }).catch((err: unknown) =>
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
    onMessage: createInboundHandler({
      account,
      groupId: state.groupId,
      operators: new Set(config.operators),
      poster: parts.poster,
      observe,
      log,
      accept,
    }),
    onError: onBackgroundError,
    onFatal: (code, why) => void shutdown.end(code, why),
  })
  if (deps.console !== undefined)
    void consoleInputs(deps.console).catch((err: unknown) => onBackgroundError('console', err))
  await announceAndStart(config, chat, parts, { life: life.signal, observe, shutdown, allowlist })
  const code = await shutdown.finished
  deps.stop?.removeEventListener('abort', onStop)
  return code
}
