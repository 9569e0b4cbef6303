/** The reference: y-websocket's provider against `@y/websocket-server`, in this process, over `ws`. */
import type { AddressInfo } from 'node:net'
import { docs, setupWSConnection } from '@y/websocket-server/utils'
import { WebSocket, WebSocketServer } from 'ws'
import { WebsocketProvider } from 'y-websocket'
import type * as Y from 'yjs'
import { logged, type Opened, type ProviderTarget } from './provider-target.ts'

// y-websocket's resyncInterval reads the global WebSocket's OPEN, which Node 20 lacks.
;(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket

// Each y-websocket provider adds a process 'exit' listener until destroyed; a suite holds more than 10.
process.setMaxListeners(64)

const ROOM = '6f1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e5f'

async function listen(port = 0): Promise<WebSocketServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port })
  wss.on('connection', (socket, request) => setupWSConnection(socket, request, { gc: true }))
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve)
    wss.once('error', reject)
  })
  return wss
}

export async function startYWebsocketTarget(): Promise<ProviderTarget> {
  const wss = await listen()
  const port = (wss.address() as AddressInfo).port
  const dead = await listen()
  const deadUrl = `ws://127.0.0.1:${(dead.address() as AddressInfo).port}`
  await new Promise<void>((resolve) => dead.close(() => resolve()))
  const providers: WebsocketProvider[] = []
  return {
    kind: 'y-websocket',
    room: ROOM,
    deadUrl,
    open(_who, doc: Y.Doc, options = {}): Opened {
      const { serverUrl, room, wrapWebSocket, connect, awareness, ...rest } = options
      const provider = new WebsocketProvider(serverUrl ?? `ws://127.0.0.1:${port}`, room ?? ROOM, doc, {
        ...rest,
        ...(connect === undefined ? {} : { connect }),
        ...(awareness === undefined ? {} : { awareness }),
        WebSocketPolyfill: (wrapWebSocket?.(WebSocket) ?? WebSocket) as unknown as typeof globalThis.WebSocket,
        // Else two providers in one process talk over an in-process BroadcastChannel, not the server.
        disableBc: true,
      })
      providers.push(provider)
      return logged(provider)
    },
    async restartServer() {
      for (const client of wss.clients) client.close(1001, 'going away')
    },
    async close() {
      for (const p of providers.splice(0)) p.destroy()
      for (const client of wss.clients) client.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      for (const [name, shared] of docs) {
        docs.delete(name)
        shared.destroy()
      }
    },
  }
}
