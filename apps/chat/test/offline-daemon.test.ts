// The chat loop's start-up against the real signal-cli 0.13.19 holding two registered accounts
// without the Signal network (`@e2e-col/contract-tests` fixture, one daemon for the file): the
// account checks and the group checks pass on the real answers, and the first step that needs
// Signal fails with the exit code of that step.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { offlineAccountsSupport, startOfflineAccountsDaemon, type OfflineAccountsDaemon } from '@e2e-col/contract-tests'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runChat } from '../src/chat.ts'
import { loadConfig, type ChatConfig } from '../src/config.ts'
import { EXIT_CODES } from '../src/exit-codes.ts'
import { saveChatState } from '../src/state/chat-state.ts'
import { chatArgv, EventLog, FAST_TIMING } from './harness.ts'

/** Runs the chat to its end (or until `stop`), collecting its events and log lines. */
async function run(
  cfg: ChatConfig,
  stop?: AbortSignal,
  events = new EventLog(),
  logs: string[] = [],
): Promise<{ code: number; logs: string[]; events: EventLog }> {
  const code = await runChat(cfg, {
    agentEnv: process.env,
    log: (l) => logs.push(l),
    timing: FAST_TIMING,
    observe: events.observe,
    ...(stop === undefined ? {} : { stop }),
  })
  return { code, logs, events }
}

const support = offlineAccountsSupport(process.env)
if (!support.available) console.log(`[chat] offline real signal-cli start-up: skipped, ${support.reason}`)

describe.skipIf(!support.available)('chat start-up against an offline real signal-cli 0.13.19', () => {
  let daemon: OfflineAccountsDaemon
  let stateHome: string

  beforeAll(async () => {
    daemon = await startOfflineAccountsDaemon()
    stateHome = mkdtempSync(join(tmpdir(), 'e2e-col-chat-offline-'))
  }, 240_000)
  afterAll(async () => {
    await daemon?.stop()
    if (stateHome !== undefined) rmSync(stateHome, { recursive: true, force: true })
  }, 30_000)

  function config(argv: string[], env: Record<string, string> = {}): ChatConfig {
    const inv = loadConfig(argv, { SIGNAL_CLI_URL: daemon.url, XDG_STATE_HOME: stateHome, ...env })
    if (inv.kind !== 'run') throw new Error('expected a run invocation')
    return inv.config
  }

  /** The state a chat started here before leaves behind, for --resume. */
  function resumable(groupId: string, groupName: string, sessionId: string) {
    return {
      version: 1 as const,
      groupId,
      groupName,
      sessionId,
      agent: 'command' as const,
      topic: 'offline',
      account: daemon.accounts.a,
      turns: 0,
      sessionStarted: false,
      createdAt: new Date().toISOString(),
    }
  }

  it('a daemon serving two accounts without SIGNAL_CLI_ACCOUNT is a usage error (listAccounts read from the real answer)', async () => {
    const { code, logs } = await run(config(chatArgv('offline')))
    expect(code).toBe(EXIT_CODES.setup)
    expect(logs.join('\n')).toMatch(/several accounts: set SIGNAL_CLI_ACCOUNT/)
  }, 60_000)

  it('a new chat gets through the account check and fails at group creation, the first step that needs Signal (exit 3)', async () => {
    const { code, logs } = await run(
      config(chatArgv('offline', ['--operator', daemon.accounts.b]), { SIGNAL_CLI_ACCOUNT: daemon.accounts.a }),
    )
    expect(code).toBe(EXIT_CODES.groupSetupFailed)
    expect(logs.join('\n')).toMatch(/could not create the group: .*-32603.*Failed to send message/)
  }, 60_000)

  it('resuming a chat in a group the account left is refused from the real listGroups (exit 3)', async () => {
    const sessionId = randomUUID()
    const cfg = config(chatArgv(undefined, ['--resume', daemon.formerGroupId]), {
      SIGNAL_CLI_ACCOUNT: daemon.accounts.a,
    })
    saveChatState(cfg.stateRoot, resumable(daemon.formerGroupId, 'contract former', sessionId))
    const { code, logs } = await run(cfg)
    expect(code).toBe(EXIT_CODES.groupSetupFailed)
    expect(logs.join('\n')).toMatch(/gone or this account left it/)
  }, 60_000)

  it('resuming a chat in a group the account is in reaches ready; the first post needs Signal, fails, and is never reported posted', async () => {
    const sessionId = randomUUID()
    const cfg = config(chatArgv(undefined, ['--resume', daemon.groupId, '--delivery-timeout', '3']), {
      SIGNAL_CLI_ACCOUNT: daemon.accounts.a,
    })
    saveChatState(cfg.stateRoot, resumable(daemon.groupId, 'contract', sessionId))
    const stop = new AbortController()
    const events = new EventLog()
    const logs: string[] = []
    const running = run(cfg, stop.signal, events, logs)
    const ready = await events.next('ready', () => true, 60_000)
    expect(ready).toEqual({ type: 'ready', groupId: daemon.groupId, sessionId })
    // The announcement is a group send: without network the real daemon answers -32603. It is
    // withheld and retried, then given up after the delivery timeout, which ends the chat.
    const ended = await Promise.race([
      running,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 30_000)),
    ])
    stop.abort()
    const { code } = ended ?? (await running)
    expect(events.events.some((e) => e.type === 'posted')).toBe(false)
    expect(code).toBe(EXIT_CODES.setup)
    expect(events.events.some((e) => e.type === 'withheld' && e.reason === 'daemon error -32603 on send')).toBe(true)
    expect(logs.join('\n')).toMatch(/send failed \(-32603\): Failed to send message: /)
    expect(logs.join('\n')).toMatch(
      /could not post the announcement for 3s \(daemon error -32603 on send\); nothing was run/,
    )
  }, 90_000)
})
