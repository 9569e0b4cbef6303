/**
 * {@link SignalBackend} over signal-cli's HTTP daemon: `POST /api/v1/rpc` on up to four kept
 * connections, `GET /api/v1/events` on a connection of its own, `GET /api/v1/check`.
 * Requests carry the daemon's own Host (derived from the configured origin); nothing a
 * browser sent is ever forwarded.
 * @see docs/daemon-contract.md §2 (the daemon surface)
 */
import type { Agent } from 'node:http'
import type { z } from 'zod'
import { asSignalCliFailure, SignalCliError, SignalEventsRefusedError, SignalUnavailableError } from './errors.ts'
import type { FullSignalBackend, SignalDocumentMethods, SignalEventStream } from './backend.ts'
import {
  AccountList,
  AttachmentData,
  ContactList,
  CreatedGroup,
  encodeRequest,
  GroupListing,
  IdentityList,
  IgnoredResult,
  parseResponse,
  safetyOf,
  SendResult,
  VersionResult,
  type RpcId,
} from './jsonrpc.ts'
import {
  supportsAdminDelete,
  supportsMemberLabels,
  supportsNoUrgent,
  supportsTerminateGroup,
} from './daemon-capabilities.ts'
import { discard, exchange, keptAgent, MAX_RPC_RESPONSE_BYTES, readCapped, type HttpAnswer } from './http-exchange.ts'
import { readSignalEvents } from './sse-reader.ts'

/** Largest attachment `getAttachment` can return: base64 (4 bytes per 3) inside one response, less room for the JSON around it. */
export const MAX_ATTACHMENT_READ_BYTES = Math.floor(((MAX_RPC_RESPONSE_BYTES - 64 * 1024) * 3) / 4)
const METHOD_NOT_FOUND = -32601
// Methods that take no account: the daemon answers `version` for everyone, and `listAccounts` lists
// what it serves whatever account a caller is bound to (a bound backend must not answer for it).
const ACCOUNT_FREE = new Set(['version', 'listAccounts'])

export interface HttpBackendOptions {
  /** The daemon's origin, e.g. `http://127.0.0.1:8080`. */
  url: string
  /** The account (E.164) for `send`, `listGroups` and the events stream; omitted for a one-account daemon. */
  account: string | undefined
  timeoutMs: number
  /** An events stream silent for this long (no keep-alive either) is treated as dead. */
  streamIdleMs: number
  /**
   * Machine traffic: every `send` goes with `noUrgent: true`, so the recipients' phones get no push
   * for it, when the daemon takes the flag (signal-cli 0.14.0+, read from its `version`; an older
   * daemon never gets it). Off by default: messages to people stay urgent.
   */
  noUrgent?: boolean
}

function describe(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown }
  return typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'error'
}

/**
 * A stream the daemon cuts mid-body (a restart, a dropped connection) ends with Node's socket
 * error; callers get the client's own typed error instead, as for every other failure.
 */
async function* cutAsUnavailable<T>(events: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* events
  } catch (error) {
    if (asSignalCliFailure(error) !== undefined) throw error
    throw new SignalUnavailableError(`signal-cli events stream cut: ${describe(error)}`, { cause: error })
  }
}

/** `undefined` when the daemon does not implement the method; any other failure is rethrown. */
async function optional<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise
  } catch (error) {
    const failure = asSignalCliFailure(error)
    if (failure?.code === 'SIDECAR_SIGNAL_RPC_ERROR' && failure.rpcCode === METHOD_NOT_FOUND) return undefined
    throw error
  }
}

type RpcCall = <T>(method: string, params: Record<string, unknown> | undefined, schema: z.ZodType<T>) => Promise<T>

/** One JSON-RPC call per request, its id counted per backend; the account added unless the method takes none. */
function createRpcCaller(origin: string, rpcAgent: Agent, account: string | undefined, timeoutMs: number): RpcCall {
  let nextId: RpcId = 0
  async function call<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: z.ZodType<T>,
  ): Promise<T> {
    const id = ++nextId
    const withAccount = account === undefined ? params : { ...params, account }
    let res: HttpAnswer
    try {
      res = await exchange(rpcAgent, `${origin}/api/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: encodeRequest(id, method, ACCOUNT_FREE.has(method) ? params : withAccount),
        headersTimeoutMs: timeoutMs,
        bodyIdleMs: timeoutMs,
      })
    } catch (error) {
      throw new SignalUnavailableError(`signal-cli ${method} failed: ${describe(error)}`, { cause: error })
    }
    if (res.statusCode >= 500) {
      await discard(res.body)
      throw new SignalUnavailableError(`signal-cli ${method} answered HTTP ${res.statusCode}`)
    }
    if (res.statusCode !== 200) {
      await discard(res.body)
      throw new SignalCliError('SIDECAR_SIGNAL_BAD_RESPONSE', `signal-cli ${method} answered HTTP ${res.statusCode}`)
    }
    let text: string
    try {
      text = await readCapped(res.body, MAX_RPC_RESPONSE_BYTES)
    } catch (error) {
      if (asSignalCliFailure(error) !== undefined) throw error
      throw new SignalUnavailableError(`signal-cli ${method} answer cut: ${describe(error)}`, { cause: error })
    }
    return parseResponse(text, id, schema)
  }
  return call
}

/** The calls not yet answered, so that closing can wait for them; after `close()` none is asked. */
function inFlight(call: RpcCall): { call: RpcCall; close: () => Promise<unknown> } {
  const pending = new Set<Promise<unknown>>()
  let closed = false
  const tracked: RpcCall = (method, params, schema) => {
    if (closed) return Promise.reject(new SignalUnavailableError(`signal-cli ${method}: the client is closed`))
    const answer = call(method, params, schema)
    pending.add(answer)
    const forget = (): void => void pending.delete(answer)
    answer.then(forget, forget)
    return answer
  }
  return {
    call: tracked,
    close() {
      closed = true
      return Promise.allSettled(pending)
    },
  }
}

/**
 * The daemon's version as last read; asked once before the first machine send or label if nobody asked yet.
 * A failed probe is not kept: the next send asks again.
 */
function createVersionMemo(call: RpcCall) {
  let known: Promise<string | undefined> | undefined
  return {
    async read(): Promise<string | undefined> {
      const version = (await optional(call('version', undefined, VersionResult)))?.version
      known = Promise.resolve(version)
      return version
    },
    async takesNoUrgent(): Promise<boolean> {
      return supportsNoUrgent(await this.known())
    },
    async takesMemberLabels(): Promise<boolean> {
      return supportsMemberLabels(await this.known())
    },
    async takesAdminDelete(): Promise<boolean> {
      return supportsAdminDelete(await this.known())
    },
    async takesTerminateGroup(): Promise<boolean> {
      return supportsTerminateGroup(await this.known())
    },
    known(): Promise<string | undefined> {
      known ??= optional(call('version', undefined, VersionResult)).then(
        (r) => r?.version,
        (error: unknown) => {
          known = undefined
          throw error
        },
      )
      return known
    },
  }
}

/** `labelSelf`: the label goes only to a daemon that takes it (0.14.1+); otherwise nothing is asked. */
function ownLabel(call: RpcCall, versions: ReturnType<typeof createVersionMemo>) {
  return async (groupId: string, label: string): Promise<boolean> => {
    if (!(await versions.takesMemberLabels())) return false
    await call('updateGroup', { groupId, memberLabel: label }, IgnoredResult)
    return true
  }
}

/** `terminateGroup`: asked only of a daemon that has it (0.14.8+); an older one would answer -32601. */
function groupEnder(call: RpcCall, versions: ReturnType<typeof createVersionMemo>) {
  return async (groupId: string): Promise<boolean> => {
    if (!(await versions.takesTerminateGroup())) return false
    await call('terminateGroup', { groupId }, IgnoredResult)
    return true
  }
}

/** `sendAdminDelete`: asked only of a daemon that has it (0.14.0+); an older one would answer -32601. */
function adminDeleter(call: RpcCall, versions: ReturnType<typeof createVersionMemo>) {
  return async (groupId: string, target: { author: string; timestamp: number }): Promise<boolean> => {
    if (!(await versions.takesAdminDelete())) return false
    const params = { groupId, targetAuthor: target.author, targetTimestamp: target.timestamp }
    await call('sendAdminDelete', params, IgnoredResult)
    return true
  }
}

/** Sends to one person, urgent: no `noUrgent`, whatever the machine-traffic setting. */
const personNotifier =
  (call: RpcCall): SignalDocumentMethods['notifyPerson'] =>
  async (recipient, message) =>
    call('send', { recipient: [recipient], message }, SendResult)

/** Sends to the account's own Note to Self, urgent: the person's phone shows it and notifies. */
const selfNoter =
  (call: RpcCall): SignalDocumentMethods['sendNoteToSelf'] =>
  async (message) =>
    call('send', { noteToSelf: true, message }, SendResult)

function versionedGroupMethods(
  call: RpcCall,
  versions: ReturnType<typeof createVersionMemo>,
): Pick<SignalDocumentMethods, 'labelSelf' | 'terminateGroup' | 'adminDelete' | 'notifyPerson' | 'sendNoteToSelf'> {
  return {
    notifyPerson: personNotifier(call),
    sendNoteToSelf: selfNoter(call),
    labelSelf: ownLabel(call, versions),
    terminateGroup: groupEnder(call, versions),
    adminDelete: adminDeleter(call, versions),
  }
}

/** `GET /api/v1/events` on its own connection: the stream, or a typed refusal. */
function eventsOpener(
  origin: string,
  eventsAgent: Agent,
  account: string | undefined,
  options: Pick<HttpBackendOptions, 'timeoutMs' | 'streamIdleMs'>,
): FullSignalBackend['openEvents'] {
  return async (signal) => {
    const query = account === undefined ? '' : `?account=${encodeURIComponent(account)}`
    let res: HttpAnswer
    try {
      res = await exchange(eventsAgent, `${origin}/api/v1/events${query}`, {
        method: 'GET',
        headers: { accept: 'text/event-stream' },
        headersTimeoutMs: Math.max(options.timeoutMs, 30_000),
        bodyIdleMs: options.streamIdleMs,
        signal,
      })
    } catch (error) {
      throw new SignalUnavailableError(`signal-cli events stream failed: ${describe(error)}`, { cause: error })
    }
    const type = String(res.headers['content-type'] ?? '')
    if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
      await discard(res.body)
      throw new SignalEventsRefusedError(
        res.statusCode,
        `signal-cli events stream answered HTTP ${res.statusCode} ${type === '' ? 'without a content type' : type}`,
      )
    }
    const body = res.body
    const stream: SignalEventStream = {
      [Symbol.asyncIterator]: () => cutAsUnavailable(readSignalEvents(body, account)),
      close: () => body.destroy(),
    }
    return stream
  }
}

/** Creates the HTTP backend; `close()` ends its connections. */
export function createHttpSignalBackend(options: HttpBackendOptions): FullSignalBackend {
  const origin = new URL(options.url).origin
  const rpcAgent = keptAgent(4)
  const eventsAgent = keptAgent(1)
  const account = options.account

  const calls = inFlight(createRpcCaller(origin, rpcAgent, account, options.timeoutMs))
  const call = calls.call
  const versions = createVersionMemo(call)

  return {
    async check(signal) {
      let res: HttpAnswer
      try {
        res = await exchange(rpcAgent, `${origin}/api/v1/check`, {
          method: 'GET',
          headersTimeoutMs: options.timeoutMs,
          bodyIdleMs: options.timeoutMs,
          signal,
        })
      } catch (error) {
        throw new SignalUnavailableError(`signal-cli check failed: ${describe(error)}`, { cause: error })
      }
      await discard(res.body)
      if (res.statusCode !== 200) throw new SignalUnavailableError(`signal-cli check answered HTTP ${res.statusCode}`)
    },
    version: () => versions.read(),
    async listAccounts() {
      // A single-account daemon (`-a`) has no such method: -32601 is `undefined`.
      return (await optional(call('listAccounts', undefined, AccountList)))?.map((a) => a.number)
    },
    listGroups: (groupId) => call('listGroups', groupId === undefined ? {} : { groupId }, GroupListing),
    async sendGroupMessage(groupId, message, attachments) {
      const params: Record<string, unknown> =
        attachments === undefined || attachments.length === 0
          ? { groupId, message }
          : { groupId, message, attachments: [...attachments] }
      if (options.noUrgent === true && (await versions.takesNoUrgent())) params['noUrgent'] = true
      return call('send', params, SendResult)
    },
    getAttachment: async (id, groupId) =>
      new Uint8Array(Buffer.from((await call('getAttachment', { id, groupId }, AttachmentData)).data, 'base64')),
    createGroup: async (name, members) =>
      (await call('updateGroup', { name, members: [...members] }, CreatedGroup)).groupId,
    acceptGroupRequest: async (groupId) =>
      void (await call('sendMessageRequestResponse', { groupId, type: 'accept' }, IgnoredResult)),
    sendReaction: async (groupId, target, emoji) =>
      void (await call(
        'sendReaction',
        { groupId, emoji, targetAuthor: target.author, targetTimestamp: target.timestamp },
        IgnoredResult,
      )),
    quitGroup: async (groupId) => void (await call('quitGroup', { groupId }, IgnoredResult)),
    createGroupWith: async (spec) =>
      (
        await call(
          'updateGroup',
          {
            name: spec.name,
            members: [...spec.members],
            description: spec.description,
            expiration: spec.expirationSeconds,
            ...(spec.admins === undefined || spec.admins.length === 0 ? {} : { admins: [...spec.admins] }),
            ...(spec.permissions === undefined
              ? {}
              : { setPermissionAddMember: spec.permissions, setPermissionEditDetails: spec.permissions }),
          },
          CreatedGroup,
        )
      ).groupId,
    async updateGroup(groupId, change) {
      const params: Record<string, unknown> = { groupId }
      if (change.name !== undefined) params['name'] = change.name
      if (change.description !== undefined) params['description'] = change.description
      if (change.addMembers !== undefined && change.addMembers.length > 0) params['members'] = [...change.addMembers]
      if (change.removeMembers !== undefined && change.removeMembers.length > 0)
        params['removeMembers'] = [...change.removeMembers]
      if (change.ban !== undefined && change.ban.length > 0) params['ban'] = [...change.ban]
      if (change.link !== undefined) params['link'] = change.link
      if (change.addAdmins !== undefined && change.addAdmins.length > 0) params['admins'] = [...change.addAdmins]
      if (change.removeAdmins !== undefined && change.removeAdmins.length > 0)
        params['removeAdmins'] = [...change.removeAdmins]
      if (change.permissions !== undefined) {
        params['setPermissionAddMember'] = change.permissions
        params['setPermissionEditDetails'] = change.permissions
      }
      await call('updateGroup', params, IgnoredResult)
    },
    ...versionedGroupMethods(call, versions),
    leaveGroup: async (groupId, newAdmins) =>
      void (await call(
        'quitGroup',
        newAdmins.length === 0 ? { groupId } : { groupId, admins: [...newAdmins] },
        IgnoredResult,
      )),
    async listContacts() {
      // allRecipients: also the people known from groups (their profile names), not only contact records.
      return (await call('listContacts', { allRecipients: true }, ContactList)).flatMap((c) => {
        if (typeof c.number !== 'string') return []
        const profile = [c.profile?.givenName, c.profile?.familyName]
          .filter((x): x is string => typeof x === 'string' && x !== '')
          .join(' ')
        const name = typeof c.name === 'string' && c.name !== '' ? c.name : profile === '' ? undefined : profile
        // signal-cli's own test of a contact (RecipientStore SQL_IS_CONTACT) also counts profile
        // sharing, which every accepted group turns on: only a name the account gave counts here.
        const own = [c.name, c.givenName, c.familyName, c.nickName, c.nickGivenName, c.nickFamilyName]
        return [{ number: c.number, name, inContacts: own.some((x) => typeof x === 'string' && x !== '') }]
      })
    },
    async listIdentities() {
      return (await call('listIdentities', {}, IdentityList)).flatMap((i) =>
        typeof i.number === 'string' ? [{ number: i.number, safety: safetyOf(i.trustLevel) }] : [],
      )
    },
    openEvents: eventsOpener(origin, eventsAgent, account, options),
    async close() {
      // As a pool closes: no new call, the calls already asked get their answers, then the connections end.
      await calls.close()
      rpcAgent.destroy()
      eventsAgent.destroy()
    },
  }
}
