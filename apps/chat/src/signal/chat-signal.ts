/**
 * {@link ChatSignal} on the signal-cli HTTP backend. Only error translation lives here: the
 * daemon unreachable becomes `CHAT_DAEMON_UNAVAILABLE` (retried within the budget), an events
 * stream refused with HTTP 400 `CHAT_NOT_LINKED`, a JSON-RPC error `CHAT_RPC` (its `cause` keeps
 * the daemon's `SignalRpcError` with `rpcCode`). The daemon client's errors are told apart by `code`.
 */
import {
  asSignalCliFailure,
  createHttpSignalBackend,
  type FullSignalBackend,
  type GroupListing,
} from '@e2e-col/signal-cli'
import { asChatError, ChatError } from '../errors.ts'
import type { ChatSignal, GroupMember, InboundMessage } from './port.ts'

export interface ChatSignalOptions {
  /** The daemon's origin, e.g. `http://127.0.0.1:8080`. */
  url: URL
  /** The account to act as; none for `listAccounts`. */
  account: string | undefined
  rpcTimeoutMs?: number
  /** Silence after which an events stream counts as dead (signal-cli sends a keep-alive every 15 s). */
  streamIdleMs?: number
}

function translate(method: string, err: unknown): unknown {
  if (asChatError(err) !== undefined) return err
  const failure = asSignalCliFailure(err)
  if (failure?.code === 'SIDECAR_EVENTS_FAILED' && failure.status === 400)
    return new ChatError('CHAT_NOT_LINKED', 'the daemon does not serve this account (events: HTTP 400)', { cause: err })
  if (failure?.code === 'SIDECAR_SIGNAL_RPC_ERROR')
    return new ChatError('CHAT_RPC', `signal-cli ${method} failed (${failure.rpcCode}): ${failure.rpcMessage}`, {
      cause: err,
    })
  if (failure?.code === 'SIDECAR_SIGNAL_UNAVAILABLE' || failure?.code === 'SIDECAR_EVENTS_FAILED') {
    return new ChatError('CHAT_DAEMON_UNAVAILABLE', `signal-cli daemon unavailable (${failure.message})`, {
      cause: err,
    })
  }
  if (failure !== undefined)
    return new ChatError('CHAT_RPC', `signal-cli ${method}: ${failure.message}`, { cause: err })
  if ((err as { name?: unknown }).name === 'AbortError') return err
  return new ChatError(
    'CHAT_DAEMON_UNAVAILABLE',
    `signal-cli ${method} broke: ${(err as { code?: string }).code ?? 'network error'}`,
    { cause: err },
  )
}

async function guard<T>(method: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    throw translate(method, err)
  }
}

type Listed = GroupListing[number]
const toMembers = (list: Listed['members']): GroupMember[] =>
  (list ?? []).map((m) =>
    typeof m === 'string' ? { number: m, uuid: null } : { number: m.number ?? null, uuid: m.uuid ?? null },
  )

/** The message events of one stream, with the chat's errors. */
async function* messages(stream: Awaited<ReturnType<FullSignalBackend['openEvents']>>): AsyncGenerator<InboundMessage> {
  try {
    for await (const event of stream) if (event.type === 'message') yield event
  } catch (err) {
    const e = translate('events', err)
    if ((e as { name?: unknown }).name === 'AbortError') return
    throw e
  } finally {
    stream.close()
  }
}

/** Builds the client. Nothing is opened until a method is called. */
export function createChatSignal(options: ChatSignalOptions): ChatSignal {
  const backend: FullSignalBackend = createHttpSignalBackend({
    url: options.url.origin,
    account: options.account,
    timeoutMs: options.rpcTimeoutMs ?? 30_000,
    streamIdleMs: options.streamIdleMs ?? 60_000,
  })

  return {
    check: (signal) => guard('check', () => backend.check(signal)),
    listAccounts: () => guard('listAccounts', () => backend.listAccounts()),
    createGroup: (name, members) => guard('updateGroup', () => backend.createGroup(name, members)),
    acceptGroup: (groupId) => guard('sendMessageRequestResponse', () => backend.acceptGroupRequest(groupId)),
    sendGroup: (groupId, message, attachments) =>
      guard('send', async () => (await backend.sendGroupMessage(groupId, message, attachments)).timestamp),
    react: (groupId, target, emoji) => guard('sendReaction', () => backend.sendReaction(groupId, target, emoji)),
    async groupMembership(groupId) {
      const groups = await guard('listGroups', () => backend.listGroups(groupId))
      const g = groups.find((x) => x.id === groupId)
      if (g === undefined) return undefined
      return {
        isMember: g.isMember !== false,
        members: toMembers(g.members),
        pendingMembers: toMembers(g.pendingMembers),
        requestingMembers: toMembers(g.requestingMembers),
      }
    },
    quitGroup: (groupId) => guard('quitGroup', () => backend.quitGroup(groupId)),
    openEvents: async (signal) => messages(await guard('events', () => backend.openEvents(signal))),
    close: () => backend.close(),
  }
}
