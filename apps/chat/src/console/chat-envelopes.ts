/**
 * The chat kinds of the e2e-col envelope (`chat-prompt`, `chat-control`, `chat-reply`,
 * `chat-status`) with UTF-8 JSON payloads, and the chat id ⇄ group id mapping. Pure apart from the
 * hash; zod checks every payload coming from a browser.
 */
import { BODY_NAMESPACE, decodeBody, decodeEnvelope, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { chatIdForGroup } from '@e2e-col/signal-cli'
import { z } from 'zod'
import { ChatError } from '../errors.ts'
import type { ConsoleInput, ConsoleOutput } from './console-port.ts'

/** Longest prompt a console may send (bytes of text); longer is refused, never cut. */
export const MAX_CONSOLE_PROMPT_CHARS = 16_000

const Prompt = z.object({ text: z.string().min(1).max(MAX_CONSOLE_PROMPT_CHARS) }).strict()
const Control = z.object({ action: z.enum(['status', 'cancel', 'stop']) }).strict()

/** The chat's id for browsers: derived from the group id (shared with the sidecar, §4.9). */
export { chatIdForGroup }

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

/** Reads a browser's `chat-prompt` or `chat-control` frame into a console input. */
export function consoleInputFromFrame(frame: Uint8Array, chatId: string): ConsoleInput {
  let env: Envelope
  try {
    env = decodeEnvelope(frame, { maxPayloadBytes: MAX_CONSOLE_PROMPT_CHARS * 4 + 64 })
  } catch (err) {
    throw new ChatError('CHAT_USAGE', 'console frame is not a valid envelope', { cause: err })
  }
  if (env.docId !== chatId) throw new ChatError('CHAT_USAGE', 'console frame is for another chat')
  let json: unknown
  try {
    json = JSON.parse(decoder.decode(env.payload))
  } catch {
    throw new ChatError('CHAT_USAGE', 'console payload is not UTF-8 JSON')
  }
  if (env.kind === 'chat-prompt') {
    const p = Prompt.safeParse(json)
    if (!p.success) throw new ChatError('CHAT_USAGE', 'chat-prompt payload must be {"text": "…"} (1…16000 characters)')
    return { text: p.data.text, ref: env.messageId }
  }
  if (env.kind === 'chat-control') {
    const c = Control.safeParse(json)
    if (!c.success)
      throw new ChatError('CHAT_USAGE', 'chat-control payload must be {"action": "status"|"cancel"|"stop"}')
    return { text: c.data.action, ref: env.messageId }
  }
  throw new ChatError('CHAT_USAGE', `a console may send chat-prompt or chat-control, not ${env.kind}`)
}

/** True for a Signal body carrying e2e-col envelopes rather than text typed by a person. */
export function isEnvelopeBody(text: string): boolean {
  return text.startsWith(BODY_NAMESPACE)
}

/**
 * Reads a whole (unchunked) `chat-prompt` / `chat-control` envelope posted to the group as an
 * `e2e-col:v1:` body, e.g. by an operator's own sidecar for its browser console.
 */
export function consoleInputFromBody(text: string, chatId: string): ConsoleInput {
  let frame: Uint8Array
  try {
    frame = decodeBody(text, { maxBodyChars: MAX_CONSOLE_PROMPT_CHARS * 6 })
  } catch (err) {
    throw new ChatError('CHAT_USAGE', 'not a valid e2e-col body', { cause: err })
  }
  return consoleInputFromFrame(frame, chatId)
}

/** Header fields of the loop's own envelopes. */
export interface LoopHeader {
  chatId: string
  /** The loop's installation id (a UUID). */
  senderId: string
  nextSeq(): number
  newMessageId(): string
}

/** Encodes one console output as an envelope frame for the sidecar. */
export function frameFromConsoleOutput(out: ConsoleOutput, header: LoopHeader): Uint8Array {
  const { kind, ...payload } = out
  return encodeEnvelope({
    kind,
    flags: 0,
    docId: header.chatId,
    senderId: header.senderId,
    messageId: header.newMessageId(),
    seq: header.nextSeq(),
    payload: encoder.encode(JSON.stringify(payload)),
  })
}
