/**
 * The sidecar's HTTP listener: `GET /healthz`, `GET /metrics`, and WebSocket upgrades on
 * `/v1/docs/<docUUID>` for mapped documents from allowed Origins, and on `/v1/chats/<chatId>`
 * (browsers) and `/v1/chats/<chatId>/loop` (the local chat loop) for chat bindings (§4.9).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { CLOSE_CODES, isUuid } from '@e2e-col/protocol'
import { WebSocketServer, type WebSocket } from 'ws'
import { isOriginAllowed, originRefusal, refusedOriginReporter } from '../http/origin.ts'

const DOC_PATH = /^\/v1\/docs\/([^/]+)$/
const CHAT_PATH = /^\/v1\/chats\/([^/]+)(\/loop)?$/
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  503: 'Service Unavailable',
}

export interface WsServerOptions {
  allowedOrigins: readonly string[]
  maxFrameBytes: number
  /** True if the document is mapped; `hasRoom` says whether one more connection fits. */
  isDocument: (docId: string) => boolean
  hasRoom: (docId: string) => boolean
  onConnection: (ws: WebSocket, docId: string) => void
  onHttp: (req: IncomingMessage, res: ServerResponse) => void
  /** False answers a request or an upgrade 421 before anything else (the peer check, listen-scope.ts). */
  admit?: (req: IncomingMessage) => boolean
  /** Told (once per origin) when a page is refused for its Origin, so the log can name it. */
  onRefusedOrigin?: (origin: string) => void
  /** Chat bindings; without it `/v1/chats/…` answers 404. */
  chats?: {
    /** An HTTP status to refuse the upgrade with, or `undefined` to accept it. */
    admit(
      chatId: string,
      role: 'browser' | 'loop',
      req: IncomingMessage,
      groupParam: string | undefined,
    ): number | undefined
    onConnection(ws: WebSocket, chatId: string, role: 'browser' | 'loop', req: IncomingMessage): void
  }
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}

export function createWsServer(o: WsServerOptions): { server: Server; wss: WebSocketServer } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxFrameBytes, perMessageDeflate: false })
  const server = createServer((req, res) =>
    o.admit?.(req) === false ? res.writeHead(421, { connection: 'close' }).end() : o.onHttp(req, res),
  )
  const refusedOrigin = refusedOriginReporter(o.onRefusedOrigin ?? (() => {}))
  // A page cannot read the status of a refused upgrade, so a page of an origin not allowed is let in
  // only to be closed at once with ORIGIN_NOT_ALLOWED, whose reason names the origin: the page can
  // say why, and does not retry. Nothing is read from or sent on that socket.
  const forbidden = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    refusedOrigin(req.headers.origin)
    wss.handleUpgrade(req, socket, head, (ws) =>
      ws.close(CLOSE_CODES.ORIGIN_NOT_ALLOWED, originRefusal(req.headers.origin)),
    )
  }
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    if (o.admit?.(req) === false) return refuseUpgrade(socket, 421, 'Misdirected Request')
    const url = new URL(req.url ?? '/', 'http://sidecar')
    const path = url.pathname
    const chat = CHAT_PATH.exec(path)
    if (isUuid(chat?.[1]))
      return upgradeChat(
        req,
        socket,
        head,
        chat[1],
        chat[2] === undefined ? 'browser' : 'loop',
        url.searchParams.get('group') ?? undefined,
      )
    const docId = DOC_PATH.exec(path)?.[1]
    if (!isUuid(docId) || !o.isDocument(docId)) return refuseUpgrade(socket, 404, 'Not Found')
    if (!isOriginAllowed(req.headers.origin, o.allowedOrigins)) return forbidden(req, socket, head)
    if (!o.hasRoom(docId)) return refuseUpgrade(socket, 503, 'Service Unavailable')
    wss.handleUpgrade(req, socket, head, (ws) => o.onConnection(ws, docId))
  })
  function upgradeChat(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    chatId: string,
    role: 'browser' | 'loop',
    group: string | undefined,
  ): void {
    const chats = o.chats
    if (chats === undefined) return refuseUpgrade(socket, 404, 'Not Found')
    if (role === 'browser' && !isOriginAllowed(req.headers.origin, o.allowedOrigins))
      return forbidden(req, socket, head)
    const status = chats.admit(chatId, role, req, group)
    if (status !== undefined) return refuseUpgrade(socket, status, STATUS_TEXT[status] ?? 'Refused')
    wss.handleUpgrade(req, socket, head, (ws) => chats.onConnection(ws, chatId, role, req))
  }
  return { server, wss }
}
