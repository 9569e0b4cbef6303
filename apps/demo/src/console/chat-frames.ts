/**
 * The console's side of the chat envelope kinds (docs/sidecar.md §4.9): what it sends
 * (`chat-prompt`, `chat-control`) and what it shows (`chat-prompt`, `chat-reply`, `chat-status`,
 * `ack`, `error`). Payloads from the sidecar are checked with zod and shown as text only.
 */
import { decodeEnvelope, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { z } from 'zod'

/** What the console shows, decoded. */
export type ChatFrame =
  | { kind: 'chat-prompt'; id: string; text: string; from: 'phone' | 'console'; ref: string | undefined }
  | { kind: 'chat-reply'; id: string; text: string; turn: number | undefined }
  | { kind: 'chat-status'; id: string; ref: string | undefined; state: string; text: string | undefined }
  | { kind: 'ack'; ref: string }
  | { kind: 'error'; ref: string; code: string; message: string }

const Prompt = z.object({
  text: z.string(),
  from: z.enum(['phone', 'console']).default('phone'),
  ref: z.string().optional(),
})
const Reply = z.object({ text: z.string(), turn: z.number().int().optional() })
const Status = z.object({ ref: z.string().optional(), state: z.string().max(32), text: z.string().optional() })
const Problem = z.object({ code: z.string(), message: z.string() })

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** Decodes one frame for this chat; `undefined` for anything the console does not show. */
export function readChatFrame(frame: Uint8Array, chatId: string): ChatFrame | undefined {
  let env: Envelope
  let json: unknown
  try {
    env = decodeEnvelope(frame)
    if (env.docId !== chatId) return undefined
    if (env.kind === 'ack') return { kind: 'ack', ref: env.messageId }
    json = JSON.parse(decoder.decode(env.payload))
  } catch {
    return undefined
  }
  const id = env.messageId
  switch (env.kind) {
    case 'chat-prompt': {
      const p = Prompt.safeParse(json)
      return p.success ? { kind: 'chat-prompt', id, text: p.data.text, from: p.data.from, ref: p.data.ref } : undefined
    }
    case 'chat-reply': {
      const r = Reply.safeParse(json)
      return r.success ? { kind: 'chat-reply', id, text: r.data.text, turn: r.data.turn } : undefined
    }
    case 'chat-status': {
      const s = Status.safeParse(json)
      return s.success
        ? { kind: 'chat-status', id, ref: s.data.ref, state: s.data.state, text: s.data.text }
        : undefined
    }
    case 'error': {
      const e = Problem.safeParse(json)
      return e.success ? { kind: 'error', ref: id, code: e.data.code, message: e.data.message } : undefined
    }
    default:
      return undefined
  }
}

/** Header of this tab's envelopes: one sender id per tab, a growing seq. */
export interface ConsoleSender {
  readonly chatId: string
  readonly senderId: string
  nextSeq(): number
  newMessageId(): string
}

/** A `chat-prompt` (typed text) or `chat-control` (`status`, `cancel`, `stop`) frame and its message id. */
export function writeChatFrame(
  sender: ConsoleSender,
  input: { kind: 'chat-prompt'; text: string } | { kind: 'chat-control'; action: 'status' | 'cancel' | 'stop' },
): { frame: Uint8Array; messageId: string } {
  const messageId = sender.newMessageId()
  const payload = input.kind === 'chat-prompt' ? { text: input.text } : { action: input.action }
  const frame = encodeEnvelope({
    kind: input.kind,
    flags: 0,
    docId: sender.chatId,
    senderId: sender.senderId,
    messageId,
    seq: sender.nextSeq(),
    payload: encoder.encode(JSON.stringify(payload)),
  })
  return { frame, messageId }
}
