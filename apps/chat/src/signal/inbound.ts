/**
 * Reads one SSE `data` payload of signal-cli (`{envelope, account}`) into the few fields the chat
 * gate needs. zod sits here because this is a trust boundary: the daemon relays other people's
 * messages. Anything that is not a text message (receipts, typing, exceptions) becomes `undefined`.
 * @see /work/shared/reference/signal-cli-wire.md §2.2, §6
 */
import { z } from 'zod'

const GroupInfo = z.object({ groupId: z.string() }).loose()
const Message = z
  .object({
    timestamp: z.number().int().nonnegative().optional(),
    message: z.string().nullable().optional(),
    groupInfo: GroupInfo.nullable().optional(),
  })
  .loose()

const Payload = z
  .object({
    account: z.string().nullable().optional(),
    exception: z.unknown().optional(),
    envelope: z
      .object({
        sourceNumber: z.string().nullable().optional(),
        source: z.string().nullable().optional(),
        sourceUuid: z.string().nullable().optional(),
        sourceDevice: z.number().int().nullable().optional(),
        timestamp: z.number().int().nonnegative(),
        dataMessage: Message.nullable().optional(),
        syncMessage: z.object({ sentMessage: Message.nullable().optional() }).loose().nullable().optional(),
      })
      .loose(),
  })
  .loose()

/** One text message seen on the events stream, before the gate. */
export interface InboundMessage {
  /** The account the daemon received it for (`account` of the payload), when given. */
  account: string | undefined
  /** `dataMessage` from someone, or `sync` (`syncMessage.sentMessage`): our own account, another device. */
  origin: 'data' | 'sync'
  sourceNumber: string | undefined
  sourceUuid: string | undefined
  sourceDevice: number | undefined
  /** The message's sent timestamp: Signal's message id, used for reactions and echo suppression. */
  timestamp: number
  groupId: string | undefined
  body: string
}

/** Parses one payload; `undefined` for anything that is not a readable text message. */
export function parseInbound(data: string): InboundMessage | undefined {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    return undefined
  }
  // JSON-RPC notification form (socket/stdio) carries the same object under params.
  if (typeof json === 'object' && json !== null && 'params' in json) json = (json as { params: unknown }).params
  const parsed = Payload.safeParse(json)
  if (!parsed.success) return undefined
  const p = parsed.data
  if (p.exception !== undefined && p.exception !== null) return undefined
  const env = p.envelope
  const sent = env.syncMessage?.sentMessage
  const source =
    typeof env.dataMessage?.message === 'string'
      ? { m: env.dataMessage, origin: 'data' as const }
      : typeof sent?.message === 'string'
        ? { m: sent, origin: 'sync' as const }
        : undefined
  if (source === undefined) return undefined
  return {
    account: p.account ?? undefined,
    origin: source.origin,
    sourceNumber: env.sourceNumber ?? env.source ?? undefined,
    sourceUuid: env.sourceUuid ?? undefined,
    sourceDevice: env.sourceDevice ?? undefined,
    timestamp: source.m.timestamp ?? env.timestamp,
    groupId: source.m.groupInfo?.groupId,
    body: source.m.message as string,
  }
}
