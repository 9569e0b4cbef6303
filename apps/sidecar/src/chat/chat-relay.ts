/**
 * Chat bindings: browsers on `/v1/chats/<chatId>` and at most one chat loop on
 * `/v1/chats/<chatId>/loop`. Nothing of a chat is batched, replicated or carried by the send
 * queue: an admitted browser's `chat-prompt` / `chat-control` goes to the attached loop, the
 * loop's `chat-*` frames go to the browsers, and plain text seen in the group is lifted for
 * browsers while no loop is attached here (an attached loop mirrors the conversation itself).
 * @see docs/sidecar.md §4.9
 */
import type { IncomingMessage } from 'node:http'
import { CLOSE_CODES, encodeBody, encodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import type { WebSocket } from 'ws'
import type { Session } from '../browser/session.ts'
import type { Logger } from '../ops/logger.ts'
import { chatIdForGroup, isLoopbackHost, type SignalMessage } from '@e2e-col/signal-cli'
import { liftMessage } from './chat-lift.ts'

export type ChatRole = 'browser' | 'loop'

const BROWSER_TO_LOOP: ReadonlySet<Kind> = new Set<Kind>(['chat-prompt', 'chat-control'])
const LOOP_TO_BROWSER: ReadonlySet<Kind> = new Set<Kind>(['chat-prompt', 'chat-reply', 'chat-status'])
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

export interface ChatRelayOptions {
  bindings: readonly { readonly chatId: string; readonly groupId: string }[]
  /** True for a group that carries a document: a loop may not bind one of those as a chat. */
  isDocumentGroup: (groupId: string) => boolean
  operators: ReadonlySet<string>
  loopAccount: string | undefined
  browserOperators: boolean
  maxConnectionsPerChat: number
  maxBodyBytes: number
  sidecarId: string
  newMessageId(): string
  /** A session over `ws` whose envelopes (checked: binary, rate, decodable, this chat) go to `onEnvelope`. */
  makeSession(
    ws: WebSocket,
    chatId: string,
    onEnvelope: (session: Session, env: Envelope, frame: Uint8Array) => void,
  ): Session
  /** Posts one text body to a group (an admitted browser's prompt while no loop is attached here). */
  postBody(groupId: string, body: string): Promise<void>
  logger: Logger
}

interface Chat {
  chatId: string
  groupId: string
  browsers: Map<Session, { operator: boolean }>
  loop: Session | undefined
}

export interface ChatRelay {
  /** Accepts or refuses an upgrade: an HTTP status to refuse with, `undefined` to accept. */
  admit(chatId: string, role: ChatRole, req: IncomingMessage, groupParam: string | undefined): number | undefined
  onConnection(ws: WebSocket, chatId: string, role: ChatRole, req: IncomingMessage): void
  /** A text message in some group; lifted for browsers when it is a chat's group. */
  onSignalMessage(msg: SignalMessage): void
  isChatGroup(groupId: string): boolean
  close(code: number, reason: string): void
}

/** A browser may drive the loop only when configured to and when its page is on loopback. */
function isOperatorBrowser(origin: string | undefined, browserOperators: boolean): boolean {
  if (!browserOperators || origin === undefined) return false
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)
  } catch {
    return false
  }
}

/** A loop is a local program: no Origin (browsers always send one) and a loopback peer. */
function isLocalProgram(req: IncomingMessage): boolean {
  return req.headers.origin === undefined && isLoopbackHost(req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '')
}

export function createChatRelay(o: ChatRelayOptions): ChatRelay {
  const chats = new Map<string, Chat>()
  const byGroup = new Map<string, Chat>()
  const bind = (chatId: string, groupId: string): Chat => {
    const chat: Chat = { chatId, groupId, browsers: new Map(), loop: undefined }
    chats.set(chatId, chat)
    byGroup.set(groupId, chat)
    return chat
  }
  for (const b of o.bindings) bind(b.chatId, b.groupId)
  const enc = new TextEncoder()
  let seq = 0

  function toBrowsers(chat: Chat, frame: Uint8Array, except?: Session): void {
    for (const s of chat.browsers.keys()) if (s !== except) s.send(frame)
  }

  function fromBrowser(chat: Chat, session: Session, env: Envelope, frame: Uint8Array): void {
    const strike = { messageId: env.messageId, strike: true }
    if (!BROWSER_TO_LOOP.has(env.kind))
      return session.refuse(
        'SIDECAR_KIND_NOT_ALLOWED',
        `a chat console may send chat-prompt or chat-control, not ${env.kind}`,
        strike,
      )
    if (chat.browsers.get(session)?.operator !== true) {
      return session.refuse(
        'SIDECAR_CHAT_NOT_OPERATOR',
        'this browser may follow the chat but not drive it (needs a loopback page and E2E_COL_CHAT_BROWSER_OPERATORS=1)',
        { messageId: env.messageId, strike: false },
      )
    }
    if (chat.loop !== undefined) {
      chat.loop.send(frame)
      return session.ack(env.messageId)
    }
    // No loop here: the prompt goes to the group as this account's e2e-col body; the loop gates it.
    const body = encodeBody(frame)
    if (Buffer.byteLength(body) > o.maxBodyBytes)
      return session.refuse(
        'SIDECAR_CHAT_TOO_LONG',
        'no chat loop is attached here and the prompt does not fit one Signal message',
        { messageId: env.messageId, strike: false },
      )
    o.postBody(chat.groupId, body).then(
      () => session.ack(env.messageId),
      (error: unknown) => {
        o.logger.warn({ err: error }, 'chat prompt not posted')
        session.refuse('SIDECAR_CHAT_UNSENT', 'the prompt could not be posted to the chat group', {
          messageId: env.messageId,
          strike: false,
        })
      },
    )
  }

  function fromLoop(chat: Chat, session: Session, env: Envelope, frame: Uint8Array): void {
    if (!LOOP_TO_BROWSER.has(env.kind))
      return session.refuse(
        'SIDECAR_KIND_NOT_ALLOWED',
        `a chat loop may send chat-prompt, chat-reply or chat-status, not ${env.kind}`,
        { messageId: env.messageId, strike: true },
      )
    toBrowsers(chat, frame)
  }

  return {
    admit(chatId, role, req, groupParam) {
      let chat = chats.get(chatId)
      if (role === 'loop') {
        if (!isLocalProgram(req)) return 403
        if (groupParam !== undefined) {
          const known = chat?.groupId ?? groupParam
          if (
            known !== groupParam ||
            !BASE64.test(groupParam) ||
            chatIdForGroup(groupParam) !== chatId ||
            o.isDocumentGroup(groupParam)
          )
            return 400
          chat ??= bind(chatId, groupParam)
        }
        if (chat === undefined) return 404
        return chat.loop === undefined ? undefined : 409
      }
      if (chat === undefined) return 404
      return chat.browsers.size < o.maxConnectionsPerChat ? undefined : 503
    },
    onConnection(ws, chatId, role, req) {
      const chat = chats.get(chatId)
      if (chat === undefined || (role === 'loop' && chat.loop !== undefined))
        return void ws.close(CLOSE_CODES.POLICY_VIOLATION)
      if (role === 'loop') {
        const session = o.makeSession(ws, chatId, (s, env, frame) => fromLoop(chat, s, env, frame))
        chat.loop = session
        o.logger.info({ chatId }, 'chat loop attached')
        ws.on('close', () => {
          if (chat.loop === session) chat.loop = undefined
          o.logger.info({ chatId }, 'chat loop detached')
        })
        return
      }
      const session = o.makeSession(ws, chatId, (s, env, frame) => fromBrowser(chat, s, env, frame))
      chat.browsers.set(session, { operator: isOperatorBrowser(req.headers.origin, o.browserOperators) })
      ws.on('close', () => chat.browsers.delete(session))
    },
    onSignalMessage(msg) {
      const chat = byGroup.get(msg.groupId)
      if (chat === undefined || chat.loop !== undefined || chat.browsers.size === 0) return
      const lifted = liftMessage(msg, { operators: o.operators, loopAccount: o.loopAccount })
      if (lifted === undefined) return
      const payload = enc.encode(JSON.stringify(lifted.payload))
      toBrowsers(
        chat,
        encodeEnvelope({
          kind: lifted.kind,
          flags: 0,
          docId: chat.chatId,
          senderId: o.sidecarId,
          messageId: o.newMessageId(),
          seq: seq++,
          payload,
        }),
      )
    },
    isChatGroup: (groupId) => byGroup.has(groupId),
    close(code, reason) {
      for (const chat of chats.values()) {
        for (const s of chat.browsers.keys()) s.close(code, reason)
        chat.loop?.close(code, reason)
      }
    },
  }
}
