/**
 * The daemon checks run before the sidecar opens any port, in order: the check endpoint answers,
 * a `version` probe (a daemon without the method is fine), the account is known, and every mapped
 * group lists the account as a member. Each failure is one SidecarError with its own code (and so
 * its own exit code).
 */
import { maskNumber, type GroupListing, type SignalBackend, type SignalRpcError } from '@e2e-col/signal-cli'
import { codeOf, messageOf } from './error-code.ts'
import { SidecarError } from './errors.ts'
import type { SidecarConfig } from './config.ts'

export interface DaemonFacts {
  version: string | undefined
  /** The account's groups as listed at start (the first membership list of the receive path and the capability rule). */
  groups: GroupListing
  /** This sidecar's own number: SIGNAL_CLI_ACCOUNT, else the daemon's one account (undefined when it cannot say). */
  account: string | undefined
}

const reason = messageOf

export async function checkDaemon(backend: SignalBackend, config: SidecarConfig): Promise<DaemonFacts> {
  const account = config.signal.account
  try {
    await backend.check(AbortSignal.timeout(config.signal.rpcTimeoutMs))
  } catch (error) {
    throw new SidecarError(
      'SIDECAR_DAEMON_UNREACHABLE',
      `signal-cli at ${config.signal.url} does not answer GET /api/v1/check (${reason(error)})`,
      { cause: error },
    )
  }
  let version: string | undefined
  let self = account
  try {
    version = await backend.version()
  } catch (error) {
    throw new SidecarError('SIDECAR_VERSION_FAILED', `signal-cli version probe failed (${reason(error)})`, {
      cause: error,
    })
  }
  if (account === undefined) {
    let accounts: string[] | undefined
    try {
      accounts = await backend.listAccounts()
    } catch (error) {
      throw new SidecarError(
        'SIDECAR_ACCOUNT_INVALID',
        `cannot list the daemon's accounts (${reason(error)}); set SIGNAL_CLI_ACCOUNT`,
        { cause: error },
      )
    }
    if (accounts !== undefined && accounts.length !== 1) {
      throw new SidecarError(
        'SIDECAR_ACCOUNT_INVALID',
        `the daemon serves ${accounts.length} accounts; set SIGNAL_CLI_ACCOUNT to the one to use`,
      )
    }
    self = accounts?.[0]
  }
  let groups: Awaited<ReturnType<SignalBackend['listGroups']>>
  try {
    groups = await backend.listGroups()
  } catch (error) {
    if (codeOf(error) === 'SIDECAR_SIGNAL_RPC_ERROR' && (error as SignalRpcError).rpcCode === -32602) {
      throw new SidecarError(
        'SIDECAR_ACCOUNT_INVALID',
        `the daemon does not know SIGNAL_CLI_ACCOUNT ${account === undefined ? '' : maskNumber(account)} (${reason(error)})`,
        { cause: error },
      )
    }
    throw new SidecarError('SIDECAR_GROUPS_MISSING', `listGroups failed (${reason(error)})`, { cause: error })
  }
  const isMember = (groupId: string): boolean => {
    const g = groups.find((x) => x.id === groupId)
    if (g === undefined || g.isMember === false) return false
    const listed = (g.members ?? []).some((m) => (typeof m === 'string' ? m : m.number) === account)
    return g.isMember === true || listed
  }
  // Chat groups too: the sidecar reads them with this account, so it must be in them.
  const missing = [
    ...config.documents.filter((d) => !isMember(d.groupId)).map((d) => `document ${d.docId} (group ${d.groupId})`),
    ...config.chats.bindings.filter((c) => !isMember(c.groupId)).map((c) => `chat ${c.chatId} (group ${c.groupId})`),
  ]
  if (missing.length > 0) {
    throw new SidecarError('SIDECAR_GROUPS_MISSING', `the account is not a member of: ${missing.join(', ')}`)
  }
  return { version, groups, account: self }
}
