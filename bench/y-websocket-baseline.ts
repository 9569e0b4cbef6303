/**
 * The baseline: `@y/websocket-server` in this process (or, with `inChild`, in its own: yws-child.ts)
 * and `y-websocket` providers as Node clients
 * (with `disableBc: true`, else two providers in one process talk over an in-process
 * BroadcastChannel and the server is never measured). Each provider's WebSocket is counted.
 */
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { docs, setupWSConnection } from '@y/websocket-server/utils'
import { WebSocketServer } from 'ws'
import { WebsocketProvider } from 'y-websocket'
import type * as Y from 'yjs'
import { BenchChild } from './child.ts'
import { countingWebSocket, WireCounter } from './wire-counter.ts'

export interface YwsClient {
  readonly provider: WebsocketProvider
  readonly wire: WireCounter
}

export interface YwsServer {
  readonly url: string
  /** A fresh room name (rooms are never reused, so runs do not see each other's state). */
  room(): string
  connect(room: string, doc: Y.Doc): Promise<YwsClient>
  /** Disconnects the providers of `room` and frees the server's copy of it. */
  closeRoom(room: string): Promise<void>
  close(): Promise<void>
}

interface ServerSide {
  readonly url: string
  freeRoom(room: string): Promise<void>
  close(): Promise<void>
}

async function serveHere(): Promise<ServerSide> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  wss.on('connection', (socket, request) => setupWSConnection(socket, request, { gc: true }))
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve)
    wss.once('error', reject)
  })
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    async freeRoom(room) {
      const shared = docs.get(room)
      docs.delete(room)
      shared?.destroy()
    },
    async close() {
      for (const client of wss.clients) client.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    },
  }
}

async function serveInChild(): Promise<ServerSide> {
  const child = new BenchChild('yws-child.ts')
  try {
    const { url } = await child.request<{ url: string }>({ type: 'start' }, 'started')
    return {
      url,
      freeRoom: (room) => child.request<unknown>({ type: 'closeRoom', room }, 'closed').then(() => undefined),
      close: () => child.stop(),
    }
  } catch (error) {
    await child.stop()
    throw error
  }
}

export async function startYws({ inChild = false }: { inChild?: boolean } = {}): Promise<YwsServer> {
  const server = inChild ? await serveInChild() : await serveHere()
  const url = server.url
  const providers = new Map<string, WebsocketProvider[]>()
  const closeRoom = async (room: string): Promise<void> => {
    for (const p of providers.get(room) ?? []) p.destroy()
    providers.delete(room)
    await server.freeRoom(room)
  }
  return {
    url,
    room: () => `bench-${randomUUID()}`,
    async connect(room, doc) {
      const wire = new WireCounter()
      const provider = new WebsocketProvider(url, room, doc, {
        WebSocketPolyfill: countingWebSocket(wire) as unknown as typeof WebSocket,
        disableBc: true,
      })
      providers.set(room, [...(providers.get(room) ?? []), provider])
      await new Promise<void>((resolve) => {
        if (provider.synced) resolve()
        else provider.once('sync', () => resolve())
      })
      return { provider, wire }
    },
    closeRoom,
    async close() {
      // Deleting the current key while iterating a Map is safe.
      for (const room of providers.keys()) await closeRoom(room)
      await server.close()
    },
  }
}
