/**
 * The y-websocket baseline's server (`@y/websocket-server`) in its own process, so section 1
 * compares like with like: e2e-col's toy and sidecars run in children there too. Driven over IPC
 * through BenchChild: `start` → `started` (url); `closeRoom` (room) → `closed`; `stop`.
 */
import type { AddressInfo } from 'node:net'
import { docs, setupWSConnection } from '@y/websocket-server/utils'
import { WebSocketServer } from 'ws'
import { serveBenchRequests } from './child-serve.ts'

type Request = { type: 'start' } | { type: 'closeRoom'; room: string } | { type: 'stop' }

let wss: WebSocketServer | undefined
serveBenchRequests<Request>(async (request, reply) => {
  switch (request.type) {
    case 'start': {
      const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
      wss = server
      server.on('connection', (socket, req) => setupWSConnection(socket, req, { gc: true }))
      await new Promise<void>((resolve, reject) => {
        server.once('listening', resolve)
        server.once('error', reject)
      })
      reply({ type: 'started', url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` })
      break
    }
    case 'closeRoom': {
      // Without persistence the server keeps a room's document after its last client leaves.
      const shared = docs.get(request.room)
      docs.delete(request.room)
      shared?.destroy()
      reply({ type: 'closed' })
      break
    }
    case 'stop':
      for (const client of wss?.clients ?? []) client.terminate()
      await new Promise<void>((resolve) => (wss === undefined ? resolve() : wss.close(() => resolve())))
      process.exit(0)
  }
})
