/**
 * The sidecar's HTTP listener: `GET /healthz`, `GET /metrics`, and WebSocket upgrades on
 * `/v1/docs/<docUUID>` for mapped documents from allowed Origins.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { isOriginAllowed } from './origin.ts'

const DOC_PATH = /^\/v1\/docs\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/

export interface WsServerOptions {
  allowedOrigins: readonly string[]
  maxFrameBytes: number
  /** True if the document is mapped; `hasRoom` says whether one more connection fits. */
  isDocument: (docId: string) => boolean
  hasRoom: (docId: string) => boolean
  onConnection: (ws: WebSocket, docId: string) => void
  onHttp: (req: IncomingMessage, res: ServerResponse) => void
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}

export function createWsServer(o: WsServerOptions): { server: Server; wss: WebSocketServer } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxFrameBytes, perMessageDeflate: false })
  const server = createServer(o.onHttp)
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    const path = new URL(req.url ?? '/', 'http://sidecar').pathname
    const docId = DOC_PATH.exec(path)?.[1]
    if (docId === undefined || !o.isDocument(docId)) return refuseUpgrade(socket, 404, 'Not Found')
    if (!isOriginAllowed(req.headers.origin, o.allowedOrigins)) return refuseUpgrade(socket, 403, 'Forbidden')
    if (!o.hasRoom(docId)) return refuseUpgrade(socket, 503, 'Service Unavailable')
    wss.handleUpgrade(req, socket, head, (ws) => o.onConnection(ws, docId))
  })
  return { server, wss }
}
