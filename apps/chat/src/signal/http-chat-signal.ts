/**
 * {@link ChatSignal} over signal-cli's `POST /api/v1/rpc` and `GET /api/v1/events` (SSE), with
 * undici and eventsource-parser. Daemon errors keep code and message, never `error.data`.
 * @see /work/shared/reference/signal-cli-wire.md §2–§4
 */
import { createParser } from 'eventsource-parser'
import { request, type Dispatcher } from 'undici'
import { z } from 'zod'
import { ChatError, SignalRpcError } from '../errors.ts'
import type { ChatSignal, GroupMembership } from './port.ts'

const RpcResponse = z
  .object({
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    result: z.unknown().optional(),
    error: z.object({ code: z.number(), message: z.string() }).loose().optional(),
  })
  .loose()

const Member = z.object({ number: z.string().nullable().optional(), uuid: z.string().nullable().optional() }).loose()
const Group = z
  .object({
    id: z.string(),
    isMember: z.boolean().optional(),
    members: z.array(z.union([Member, z.string()])).default([]),
    pendingMembers: z.array(z.union([Member, z.string()])).default([]),
    requestingMembers: z.array(z.union([Member, z.string()])).default([]),
  })
  .loose()
const Accounts = z.array(z.object({ number: z.string() }).loose())
const CreateResult = z.object({ groupId: z.string() }).loose()
const SendResult = z.object({ timestamp: z.number().int() }).loose()

/** Options of {@link createHttpChatSignal}. */
export interface HttpChatSignalOptions {
  /** `http://127.0.0.1:8080` style base URL of the daemon. */
  baseUrl: URL
  /** The account to act as (sent as `account`, ignored by a single-account daemon); none for listAccounts. */
  account?: string | undefined
  /** Per-request timeout of rpc calls. */
  rpcTimeoutMs?: number
  /** Silence after which an events stream counts as dead (signal-cli sends a keep-alive every 15 s). */
  eventsIdleMs?: number
  dispatcher?: Dispatcher
}

const toMember = (m: z.infer<typeof Member> | string) => (typeof m === 'string' ? { number: m, uuid: null } : { number: m.number ?? null, uuid: m.uuid ?? null })

const unavailable = (what: string, cause?: unknown) =>
  new ChatError('CHAT_DAEMON_UNAVAILABLE', `signal-cli daemon unavailable (${what})`, cause === undefined ? undefined : { cause })

function parse<T>(schema: z.ZodType<T>, value: unknown, method: string): T {
  const r = schema.safeParse(value)
  if (!r.success) throw new ChatError('CHAT_RPC', `signal-cli ${method} answered an unexpected shape`)
  return r.data
}

/** Builds the HTTP client. Nothing is opened until a method is called. */
export function createHttpChatSignal(options: HttpChatSignalOptions): ChatSignal {
  const base = options.baseUrl.href.replace(/\/+$/, '')
  const rpcTimeout = options.rpcTimeoutMs ?? 30_000
  let nextId = 1

  async function rpc(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = nextId++
    let res: Dispatcher.ResponseData
    try {
      res = await request(`${base}/api/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', method, params: options.account === undefined ? params : { account: options.account, ...params }, id }),
        headersTimeout: rpcTimeout,
        bodyTimeout: rpcTimeout,
        ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
      })
    } catch (err) {
      throw unavailable(`${method}: ${(err as { code?: string }).code ?? 'network error'}`, err)
    }
    const text = await res.body.text().catch((err: unknown) => {
      throw unavailable(`${method}: body lost`, err)
    })
    if (res.statusCode === 201) return undefined
    if (res.statusCode !== 200) throw unavailable(`${method}: HTTP ${res.statusCode}`)
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (err) {
      throw unavailable(`${method}: answer is not JSON`, err)
    }
    const parsed = RpcResponse.safeParse(json)
    if (!parsed.success) throw unavailable(`${method}: answer is not JSON-RPC`)
    if (parsed.data.error !== undefined) throw new SignalRpcError(method, parsed.data.error.code, parsed.data.error.message)
    return parsed.data.result
  }

  return {
    async check(signal) {
      try {
        const res = await request(`${base}/api/v1/check`, {
          method: 'GET',
          headersTimeout: rpcTimeout,
          ...(signal === undefined ? {} : { signal }),
          ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
        })
        await res.body.dump()
        if (res.statusCode !== 200) throw unavailable(`check: HTTP ${res.statusCode}`)
      } catch (err) {
        if (err instanceof ChatError) throw err
        throw unavailable(`check: ${(err as { code?: string }).code ?? 'network error'}`, err)
      }
    },
    async listAccounts() {
      try {
        return parse(Accounts, await rpc('listAccounts', {}), 'listAccounts').map((a) => a.number)
      } catch (err) {
        if (err instanceof SignalRpcError && err.rpcCode === -32601) return undefined
        throw err
      }
    },
    async createGroup(name, members) {
      return parse(CreateResult, await rpc('updateGroup', { name, members: [...members] }), 'updateGroup').groupId
    },
    async acceptGroup(groupId) {
      await rpc('sendMessageRequestResponse', { groupId, type: 'accept' })
    },
    async sendGroup(groupId, message) {
      return parse(SendResult, await rpc('send', { groupId, message }), 'send').timestamp
    },
    async react(groupId, target, emoji) {
      await rpc('sendReaction', { groupId, emoji, targetAuthor: target.author, targetTimestamp: target.timestamp })
    },
    async groupMembership(groupId): Promise<GroupMembership | undefined> {
      const groups = parse(z.array(Group), await rpc('listGroups', { groupId }), 'listGroups')
      const g = groups.find((x) => x.id === groupId)
      if (g === undefined) return undefined
      return {
        isMember: g.isMember !== false,
        members: g.members.map(toMember),
        pendingMembers: g.pendingMembers.map(toMember),
        requestingMembers: g.requestingMembers.map(toMember),
      }
    },
    async quitGroup(groupId) {
      await rpc('quitGroup', { groupId })
    },
    async openEvents(signal) {
      let res: Dispatcher.ResponseData
      try {
        const query = options.account === undefined ? '' : `?account=${encodeURIComponent(options.account)}`
        res = await request(`${base}/api/v1/events${query}`, {
          method: 'GET',
          headers: { accept: 'text/event-stream' },
          signal,
          headersTimeout: rpcTimeout,
          bodyTimeout: options.eventsIdleMs ?? 60_000,
          ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
        })
      } catch (err) {
        throw unavailable(`events: ${(err as { code?: string }).code ?? 'network error'}`, err)
      }
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => {})
        if (res.statusCode === 400) throw new ChatError('CHAT_NOT_LINKED', 'the daemon does not serve this account (events: HTTP 400)')
        throw unavailable(`events: HTTP ${res.statusCode}`)
      }
      return readEvents(res.body)
    },
  }
}

async function* readEvents(body: AsyncIterable<Uint8Array> & { destroy(): void }): AsyncGenerator<string> {
  const pending: string[] = []
  const parser = createParser({
    onEvent(event) {
      if (event.event === 'receive' || event.event === undefined) pending.push(event.data)
    },
  })
  const decoder = new TextDecoder()
  try {
    for await (const chunk of body) {
      parser.feed(decoder.decode(chunk, { stream: true }))
      while (pending.length > 0) yield pending.shift() as string
    }
  } catch (err) {
    if ((err as { name?: string }).name === 'AbortError') return
    throw new ChatError('CHAT_DAEMON_UNAVAILABLE', 'signal-cli events stream broke', { cause: err })
  } finally {
    body.destroy()
  }
}
