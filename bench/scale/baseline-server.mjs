/**
 * A baseline server under plain `node`: `@y/websocket-server` (no persistence: it keeps every room
 * in memory) or `@hocuspocus/server` (no extension: it unloads a document when its last connection
 * closes). `start` (kind) → `started` (url, readyMs); `measure` (gc) → `memory`; `settle` → `settled`; `cpu` → `cpu`; `stop`.
 */
import { Server } from '@hocuspocus/server'
import { setupWSConnection } from '@y/websocket-server/utils'
import { WebSocketServer } from 'ws'
import { settle } from './settle.mjs'

let close = async () => {}
process.on('disconnect', () => process.exit(0))
process.on('message', (request) => {
  handle(request).catch((error) => process.send?.({ type: 'failed', message: String(error) }))
})

async function yws() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 256 * 1024 * 1024 })
  wss.on('connection', (socket, req) => setupWSConnection(socket, req, { gc: true }))
  await new Promise((resolve, reject) => {
    wss.once('listening', resolve)
    wss.once('error', reject)
  })
  close = () => new Promise((resolve) => wss.close(() => resolve()))
  return wss.address().port
}

async function hocuspocus() {
  const server = new Server({ port: 0, address: '127.0.0.1', quiet: true })
  await server.listen()
  close = () => server.destroy()
  return server.httpServer.address().port
}

async function handle(request) {
  switch (request.type) {
    case 'start': {
      const port = request.kind === 'hocuspocus' ? await hocuspocus() : await yws()
      process.send?.({ type: 'started', url: `ws://127.0.0.1:${port}`, readyMs: performance.now() })
      break
    }
    case 'measure':
      if (request.gc) globalThis.gc?.()
      process.send?.({ type: 'memory', ...process.memoryUsage() })
      break
    case 'settle':
      process.send?.({ type: 'settled', ...(await settle()) })
      break
    case 'cpu':
      process.send?.({ type: 'cpu', ...process.cpuUsage() })
      break
    case 'stop':
      await close()
      process.exit(0)
  }
}
