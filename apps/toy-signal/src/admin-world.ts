/**
 * The `/toy/v1/world/` admin routes (only with faults enabled): change what the toy's world holds
 * in ways its JSON-RPC methods cannot, for tests of clients' rules.
 *
 * POST /toy/v1/world/inject-message {"account","groupId","source","sourceDevice"?:1,"message","sync"?:false}
 *   Delivers a group text message to `account`'s events stream as if `source` had sent it from
 *   device `sourceDevice`: a `dataMessage`, or with `sync:true` a `syncMessage.sentMessage` (then
 *   `source` must be `account`, our own number on another device). Answers 200 `{"timestamp"}`.
 * POST /toy/v1/world/group-members  {"groupId","pending"?:[…],"requesting"?:[…]}
 *   Sets the group's invited (pending) and requesting members as listGroups shows them. 204.
 * POST /toy/v1/world/fail-next-calls {"method","n","code","message"}
 *   The next `n` calls of `method` answer that JSON-RPC error (data null) and do nothing. 204.
 * Bad bodies answer 400 `{"error":…}`; an unknown group or account 404 `{"error":…}`.
 */
import { z } from 'zod'
import type { AdminAnswer } from './admin-route.ts'
import { incomingMessage, sentMessageSync } from './envelopes.ts'
import type { EventHub } from './event-hub.ts'
import { MAX_FAULT_MESSAGE_CHARS } from './faults.ts'
import { setGroupRequests } from './group-requests.ts'
import { failNextCalls } from './method-faults.ts'
import type { ToySignalState } from './state.ts'

const Number164 = z.string().regex(/^\+[1-9]\d{6,14}$/)
/** Most numbers one list may set: a bound on what one admin call stores. */
export const MAX_WORLD_LIST = 100
const MAX_MESSAGE_CHARS = 64 * 1024

const Inject = z.object({
  account: Number164,
  groupId: z.string().min(1).max(200),
  source: Number164,
  sourceDevice: z.number().int().min(1).max(1000).default(1),
  message: z.string().max(MAX_MESSAGE_CHARS),
  sync: z.boolean().default(false),
})
const FailCalls = z.object({
  method: z.string().min(1).max(100),
  n: z.number().int().min(0).max(1000),
  code: z.number().int(),
  message: z.string().max(MAX_FAULT_MESSAGE_CHARS),
})
const Members = z.object({
  groupId: z.string().min(1).max(200),
  pending: z.array(Number164).max(MAX_WORLD_LIST).default([]),
  requesting: z.array(Number164).max(MAX_WORLD_LIST).default([]),
})

/** Handles a `/toy/v1/world/…` request, or answers `undefined` for any other path. */
export function handleWorldAdmin(
  method: string,
  path: string,
  text: string,
  world: { state: ToySignalState; hub: EventHub },
): AdminAnswer | undefined {
  if (!path.startsWith('/toy/v1/world/')) return undefined
  const name = path.slice('/toy/v1/world/'.length)
  if (name !== 'inject-message' && name !== 'group-members' && name !== 'fail-next-calls') return { status: 404 }
  if (method !== 'POST') return { status: 405 }
  let body: unknown
  try {
    body = text.trim() === '' ? {} : JSON.parse(text)
  } catch (error) {
    return { status: 400, body: { error: (error as Error).message } }
  }
  if (name === 'fail-next-calls') {
    const f = FailCalls.safeParse(body)
    if (!f.success) return { status: 400, body: { error: z.prettifyError(f.error) } }
    failNextCalls(world.state, f.data.method, f.data.n, { code: f.data.code, message: f.data.message })
    return { status: 204 }
  }
  const parsed = name === 'inject-message' ? Inject.safeParse(body) : Members.safeParse(body)
  if (!parsed.success) return { status: 400, body: { error: z.prettifyError(parsed.error) } }
  const group = world.state.groups.get((parsed.data as { groupId: string }).groupId)
  if (group === undefined) return { status: 404, body: { error: 'no such group' } }
  if (name === 'group-members') {
    const m = parsed.data as z.infer<typeof Members>
    setGroupRequests(group, { pending: m.pending, requesting: m.requesting })
    for (const number of [...m.pending, ...m.requesting]) world.state.uuidOf(number)
    return { status: 204 }
  }
  const o = parsed.data as z.infer<typeof Inject>
  if (!world.state.isAccount(o.account)) return { status: 404, body: { error: 'no such account' } }
  if (o.sync && o.source !== o.account)
    return { status: 400, body: { error: 'a sync copy comes from the account itself' } }
  const timestamp = world.state.nextTimestamp()
  const content = {
    timestamp,
    message: o.message,
    group: { id: group.id, name: group.name, revision: group.revision, type: 'DELIVER' as const },
    longTextId: world.state.randomId(15),
  }
  const source = { number: o.source, uuid: world.state.uuidOf(o.source) }
  const now = world.state.now()
  const payload = o.sync
    ? sentMessageSync(source, undefined, content, now)
    : incomingMessage(o.account, source, content, now)
  payload.envelope['sourceDevice'] = o.sourceDevice
  world.hub.deliver(payload)
  return { status: 200, body: { timestamp } }
}
