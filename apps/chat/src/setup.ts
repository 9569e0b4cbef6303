/**
 * Startup, in the order the issue fixes: endpoint, account, agent, then the group (created and its
 * message request accepted before anything is posted) or, with --resume, the group of a chat started
 * here before. Every failure maps to its exit code through {@link ChatError}.
 */
import { randomUUID } from 'node:crypto'
import { probeResumeSupport } from './agent/resume-probe.ts'
import { isLoopbackHost } from '@e2e-col/signal-cli'
import type { ChatConfig } from './config.ts'
import { ChatError } from './errors.ts'
import { chatGroupName } from './group-name.ts'
import type { DaemonHealth } from './signal/daemon-health.ts'
import { maskPhone } from './redact/local-log.ts'
import type { ChatSignal } from './signal/port.ts'
import { loadChatState, saveChatState, type ChatState } from './state/chat-state.ts'
import { sweepLeftoverTurns, type LeftoverTurn } from './state/leftover-turn.ts'
import { LOCK_HANDOVER_MS, lockSession, lockSessionWhenFree, type SessionLock } from './state/session-lock.ts'

/** A chat ready to loop. */
export interface PreparedChat {
  signal: ChatSignal
  account: string
  state: ChatState
  lock: SessionLock
  resumed: boolean
  /** Optional agent flags found by the resume probe. */
  agentFlags: readonly string[]
  /** Turns that earlier processes left running, found (and killed) before this start. */
  leftovers: readonly LeftoverTurn[]
}

async function resolveAccount(config: ChatConfig, signal: ChatSignal, health: DaemonHealth): Promise<string> {
  const accounts = await health.call('listAccounts', () => signal.listAccounts())
  const link =
    'link this machine first: `signal-cli link -n e2e-col` and scan the QR code with Signal on your phone (Settings → Linked devices)'
  if (accounts === undefined) {
    // A single-account daemon (-a): it serves exactly one number, which we must be told.
    if (config.account === undefined)
      throw new ChatError('CHAT_USAGE', 'the daemon runs with -a: set SIGNAL_CLI_ACCOUNT to that number')
    return config.account
  }
  if (config.account !== undefined) {
    if (!accounts.includes(config.account))
      throw new ChatError('CHAT_NOT_LINKED', `account ${maskPhone(config.account)} is not on this daemon; ${link}`)
    return config.account
  }
  if (accounts.length === 1 && accounts[0] !== undefined) return accounts[0]
  if (accounts.length === 0) throw new ChatError('CHAT_NOT_LINKED', `the daemon has no account; ${link}`)
  throw new ChatError('CHAT_USAGE', 'the daemon serves several accounts: set SIGNAL_CLI_ACCOUNT')
}

/** Runs the startup checks and creates (or re-attaches) the group. */
export async function prepareChat(
  config: ChatConfig,
  deps: {
    makeSignal(account: string | undefined): ChatSignal
    agentEnv: NodeJS.ProcessEnv
    health: DaemonHealth
    log(line: string): void
    graceMs: number
  },
): Promise<PreparedChat> {
  if (!isLoopbackHost(config.signalUrl.hostname) && !config.unsafeRemoteEndpoint) {
    throw new ChatError(
      'CHAT_REMOTE_ENDPOINT',
      `refusing non-loopback signal-cli endpoint ${config.signalUrl.host}: the daemon has no authentication; pass --unsafe-remote-endpoint if you really mean it`,
    )
  }
  if (config.sidecarUrl !== undefined && !isLoopbackHost(config.sidecarUrl.hostname) && !config.unsafeRemoteEndpoint) {
    throw new ChatError(
      'CHAT_REMOTE_ENDPOINT',
      `refusing non-loopback sidecar ${config.sidecarUrl.host}: the loop's link to it is privileged; pass --unsafe-remote-endpoint if you really mean it`,
    )
  }
  const leftovers = await killLeftovers(config.stateRoot, deps)
  const probe = deps.makeSignal(undefined)
  const account = await resolveAccount(config, probe, deps.health).finally(() => probe.close())
  const signal = deps.makeSignal(account)
  try {
    return { ...(await attach(config, deps, signal, account)), leftovers }
  } catch (err) {
    await signal.close()
    throw err
  }
}

/** Before anything else runs: what an earlier process of ours left running is killed and reported. */
async function killLeftovers(
  root: string,
  deps: { log(line: string): void; graceMs: number },
): Promise<LeftoverTurn[]> {
  const found = await sweepLeftoverTurns(root, { graceMs: deps.graceMs })
  const said: Record<LeftoverTurn['result'], string> = {
    killed: 'was still running and is killed now',
    'still-running': 'is still running: it did not die on SIGKILL',
    gone: 'had already ended',
    'not-ours': 'is gone (its process group id now belongs to another program, left alone)',
    unverifiable: 'cannot be checked on this system (no /proc); left alone',
  }
  for (const l of found) deps.log(`turn ${l.turn} of an earlier run (process group ${l.pgid}) ${said[l.result]}`)
  return found
}

async function attach(
  config: ChatConfig,
  deps: { agentEnv: NodeJS.ProcessEnv; health: DaemonHealth; log(line: string): void },
  signal: ChatSignal,
  account: string,
): Promise<Omit<PreparedChat, 'leftovers'>> {
  const { optionalFlags: agentFlags } = await probeResumeSupport({
    agent: config.agent,
    program: config.agentProgram,
    commandTemplate: config.agentCommand,
    env: deps.agentEnv,
  })

  if (config.resume !== undefined) {
    const state = loadChatState(config.stateRoot, config.resume)
    if (state.account !== account) throw new ChatError('CHAT_STATE', 'that chat was started with another account')
    if (state.agent !== config.agent)
      throw new ChatError('CHAT_STATE', `that chat runs agent ${state.agent}: pass --agent ${state.agent}`)
    const lock = await lockSessionWhenFree(config.stateRoot, state.sessionId, {
      waitMs: LOCK_HANDOVER_MS,
      log: deps.log,
    })
    try {
      const m = await deps.health.call('listGroups', () => signal.groupMembership(state.groupId))
      if (m === undefined || !m.isMember)
        throw new ChatError('CHAT_GROUP_SETUP', 'the chat group is gone or this account left it')
    } catch (err) {
      lock.release()
      throw err
    }
    return { signal, account, state, lock, resumed: true, agentFlags }
  }

  const sessionId = randomUUID()
  const lock = lockSession(config.stateRoot, sessionId)
  try {
    const name = chatGroupName({
      host: config.host,
      topic: config.topic ?? '',
      tmuxSession: config.tmuxSession,
      override: config.groupName,
    })
    const members = config.operators.filter((o) => o !== account)
    let groupId: string
    try {
      groupId = await signal.createGroup(name, members)
    } catch (err) {
      throw new ChatError('CHAT_GROUP_SETUP', `could not create the group: ${(err as Error).message}`, { cause: err })
    }
    try {
      await signal.acceptGroup(groupId)
    } catch (err) {
      // Leave the group we just made, so the operator is not left with a request from a dead chat.
      const left = await signal.quitGroup(groupId).then(
        () => 'left the new group',
        (e: unknown) => `could not leave the new group either (${(e as Error).message})`,
      )
      throw new ChatError(
        'CHAT_GROUP_SETUP',
        `could not accept the group's message request: ${(err as Error).message}; ${left}`,
        { cause: err },
      )
    }
    const state: ChatState = {
      version: 1,
      groupId,
      groupName: name,
      sessionId,
      agent: config.agent,
      topic: config.topic ?? '',
      account,
      turns: 0,
      sessionStarted: false,
      createdAt: new Date().toISOString(),
    }
    saveChatState(config.stateRoot, state)
    deps.log(`created group "${name}" (id ${groupId}); resume later with --resume ${groupId}`)
    return { signal, account, state, lock, resumed: false, agentFlags }
  } catch (err) {
    lock.release()
    throw err
  }
}
