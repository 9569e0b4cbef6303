/**
 * Reads one events-stream `data` payload into a {@link SignalEvent}. Three shapes are accepted:
 * the bare `{envelope, account}` object of HTTP SSE, the JSON-RPC `{method:"receive", params}`
 * notification, and the subscription form with `params.result`.
 * @see docs/daemon-contract.md §2 and sidecar.md §4.6
 */
import { z } from 'zod'
import type { SignalEvent } from './backend.ts'

// signal-cli's JsonAttachment; entries without a usable id are skipped, never fatal.
const Attachment = z
  .object({
    id: z.string().min(1).max(512),
    size: z.number().int().nonnegative().nullable().optional(),
    contentType: z.string().max(256).nullable().optional(),
  })
  .loose()

const Message = z
  .object({
    timestamp: z.number().int().nonnegative().optional(),
    message: z.string().nullable().optional(),
    attachments: z.array(z.unknown()).max(100).nullable().optional().catch(undefined),
    groupInfo: z.object({ groupId: z.string(), type: z.string().nullable().optional() }).loose().nullable().optional(),
  })
  .loose()

// A sync copy names whom the message went to: the account itself for a Note to Self.
const SentMessage = Message.extend({
  destination: z.string().nullable().optional(),
  destinationNumber: z.string().nullable().optional(),
  destinationUuid: z.string().nullable().optional(),
}).loose()

const ReceiveParams = z
  .object({
    account: z.string().nullable().optional(),
    exception: z.unknown().optional(),
    envelope: z
      .object({
        sourceNumber: z.string().nullable().optional(),
        source: z.string().nullable().optional(),
        sourceUuid: z.string().nullable().optional(),
        sourceDevice: z.number().int().nullable().optional(),
        timestamp: z.number().int().nonnegative().optional(),
        dataMessage: Message.nullable().optional(),
        syncMessage: z.object({ sentMessage: SentMessage.nullable().optional() }).loose().nullable().optional(),
      })
      .loose(),
  })
  .loose()
type ReceiveParams = z.infer<typeof ReceiveParams>

const Notification = z
  .object({
    method: z.literal('receive'),
    params: z.union([z.object({ result: ReceiveParams }).loose(), ReceiveParams]),
  })
  .loose()

function unwrap(json: unknown): ReceiveParams | undefined {
  const n = Notification.safeParse(json)
  if (n.success)
    return 'result' in n.data.params ? (n.data.params.result as ReceiveParams) : (n.data.params as ReceiveParams)
  const bare = ReceiveParams.safeParse(json)
  return bare.success ? bare.data : undefined
}

/**
 * A sync copy whose destination is the account itself: its number (the account the stream is for),
 * or its uuid (a sync copy's source is always the account).
 */
function toSelf(p: ReceiveParams, account: string | undefined): boolean {
  const sent = p.envelope.syncMessage?.sentMessage
  if (sent === undefined || sent === null) return false
  const self = account ?? p.account ?? undefined
  const number = sent.destinationNumber ?? sent.destination ?? undefined
  const uuid = sent.destinationUuid ?? undefined
  const selfUuid = p.envelope.sourceUuid ?? undefined
  return (self !== undefined && number === self) || (uuid !== undefined && selfUuid !== undefined && uuid === selfUuid)
}

/**
 * Parses one payload. `account`, when given, must match the payload's account if it has one.
 */
export function parseReceivePayload(data: string, account: string | undefined): SignalEvent {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    return { type: 'skipped', reason: 'malformed' }
  }
  const p = unwrap(json)
  if (p === undefined) return { type: 'skipped', reason: 'malformed' }
  if (account !== undefined && typeof p.account === 'string' && p.account !== account)
    return { type: 'skipped', reason: 'other-account' }
  const dm = p.envelope.dataMessage
  const sent = p.envelope.syncMessage?.sentMessage
  const source =
    typeof dm?.message === 'string'
      ? { m: dm, origin: 'data' as const }
      : typeof sent?.message === 'string'
        ? { m: sent, origin: 'sync' as const }
        : undefined
  // A group change (ours from another device, or someone else's) has no body: it is a signal to look again.
  const update =
    dm?.groupInfo?.type === 'UPDATE' ? dm.groupInfo : sent?.groupInfo?.type === 'UPDATE' ? sent.groupInfo : undefined
  if (source === undefined && update !== undefined && update !== null) {
    return {
      type: 'group-update',
      groupId: update.groupId,
      sourceNumber: p.envelope.sourceNumber ?? p.envelope.source ?? undefined,
    }
  }
  if (source === undefined)
    return { type: 'skipped', reason: p.exception === undefined || p.exception === null ? 'no-body' : 'exception' }
  const groupId = source.m.groupInfo?.groupId
  const env = p.envelope
  if (groupId === undefined && source.origin === 'sync' && toSelf(p, account))
    return {
      type: 'note-to-self',
      body: source.m.message as string,
      timestamp: source.m.timestamp ?? env.timestamp,
      sourceDevice: env.sourceDevice ?? undefined,
    }
  if (groupId === undefined) return { type: 'skipped', reason: 'not-group' }
  const attachments = (source.m.attachments ?? []).flatMap((a) => {
    const parsed = Attachment.safeParse(a)
    return parsed.success
      ? [{ id: parsed.data.id, size: parsed.data.size ?? undefined, contentType: parsed.data.contentType ?? undefined }]
      : []
  })
  return {
    type: 'message',
    groupId,
    body: source.m.message as string,
    origin: source.origin,
    // The message's sent timestamp is its id on Signal (reactions, echo suppression).
    timestamp: source.m.timestamp ?? env.timestamp,
    sourceNumber: env.sourceNumber ?? env.source ?? undefined,
    sourceUuid: env.sourceUuid ?? undefined,
    sourceDevice: env.sourceDevice ?? undefined,
    account: p.account ?? undefined,
    ...(attachments.length === 0 ? {} : { attachments }),
  }
}
