/**
 * `runChat`: the whole command after argument parsing: startup checks, then the loop. Returns the
 * exit code; never throws for expected failures.
 */
import type { ChatConfig } from './config.ts'
import { exitCodeOf } from './errors.ts'
import type { ExitCode } from './exit-codes.ts'
import { DEFAULT_TIMING, runChatLoop, type ChatEvent, type ChatTiming } from './loop/chat-loop.ts'
import { createDaemonHealth } from './signal/daemon-health.ts'
import { createLocalLog } from './redact/local-log.ts'
import { createRedactor } from './redact/redactor.ts'
import { prepareChat } from './setup.ts'
import { createChatSignal } from './signal/chat-signal.ts'
import type { ChatSignal } from './signal/port.ts'
import type { ConsolePort } from './console/console-port.ts'
import { connectSidecarConsole, type SidecarConsole } from './console/sidecar-console.ts'

/** What the command needs from its surroundings; tests pass their own. */
export interface RunChatDeps {
  /** The agent's environment (also the source of known secret values). */
  agentEnv: NodeJS.ProcessEnv
  /** Terminal sink; every line is redacted and phone numbers shortened before it gets here. */
  log(line: string): void
  /** Aborted on SIGINT/SIGTERM: ends with exit 0, keeping the group for --resume. */
  stop?: AbortSignal | undefined
  timing?: Partial<ChatTiming> | undefined
  observe?: ((event: ChatEvent) => void | Promise<void>) | undefined
  cwd?: string | undefined
  /** Browser consoles, through the sidecar (see docs/chat.md). */
  console?: ConsolePort | undefined
  /** Override of the daemon client (default: HTTP JSON-RPC + SSE at config.signalUrl). */
  makeSignal?: ((account: string | undefined) => ChatSignal) | undefined
}

/** Runs `e2e-col chat` with a loaded config; resolves to the process exit code. */
export async function runChat(config: ChatConfig, deps: RunChatDeps): Promise<ExitCode> {
  const timing = { ...DEFAULT_TIMING, ...deps.timing }
  // The agent token is masked like any secret of the agent's environment.
  const redactor = createRedactor({
    env: deps.agentEnv,
    extraValues: config.agentToken === undefined ? [] : [config.agentToken],
  })
  const log = createLocalLog(deps.log, redactor)
  const health = createDaemonHealth({
    budget: config.retryBudget,
    baseMs: timing.backoffBaseMs,
    maxMs: timing.backoffMaxMs,
    onRetry: (what, attempt, delay) =>
      log(`daemon unreachable (${what}); attempt ${attempt}/${config.retryBudget}, next in ${delay} ms`),
  })
  const makeSignal = deps.makeSignal ?? ((account) => createChatSignal({ url: config.signalUrl, account }))
  let prepared
  try {
    prepared = await prepareChat(config, { makeSignal, agentEnv: deps.agentEnv, health, log, graceMs: timing.graceMs })
  } catch (err) {
    log(`e2e-col chat: ${err instanceof Error ? err.message : String(err)}`)
    return exitCodeOf(err)
  }
  // Browser consoles: given by the caller, or through the local sidecar (--sidecar).
  let sidecar: SidecarConsole | undefined
  if (deps.console === undefined && config.sidecarUrl !== undefined) {
    sidecar = connectSidecarConsole({
      url: config.sidecarUrl,
      groupId: prepared.state.groupId,
      log,
      backoff: { baseMs: timing.backoffBaseMs, maxMs: timing.backoffMaxMs },
    })
    log(`browser consoles: ${new URL(`/v1/chats/${sidecar.chatId}`, config.sidecarUrl).href}`)
  }
  try {
    return await runChatLoop(config, prepared, {
      redactor,
      health,
      agentEnv: deps.agentEnv,
      log,
      timing,
      stop: deps.stop,
      cwd: deps.cwd,
      observe: deps.observe,
      console: deps.console ?? sidecar,
    })
  } catch (err) {
    log(`e2e-col chat: ${err instanceof Error ? err.message : String(err)}`)
    return exitCodeOf(err)
  } finally {
    prepared.lock.release()
    await Promise.all([prepared.signal.close(), sidecar?.close()])
  }
}
