/**
 * A pass-through HTTP proxy in front of a daemon that keeps every JSON-RPC request body it
 * forwards, so a test can see what a client sent to a real daemon (params included), not only
 * what the daemon answered.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'

export interface RecordingProxy {
  url: string
  /** Parsed bodies of the `POST /api/v1/rpc` requests, oldest first. */
  rpcBodies(): unknown[]
  close(): Promise<void>
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of req) parts.push(part as Buffer)
  return Buffer.concat(parts)
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const bodies: unknown[] = []
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req)
      if (req.method === 'POST' && req.url === '/api/v1/rpc') bodies.push(JSON.parse(body.toString('utf8')))
      const upstream = await request(new URL(req.url ?? '/', target), {
        method: (req.method ?? 'GET') as 'GET' | 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: req.method === 'POST' ? body : null,
      })
      res.writeHead(upstream.statusCode, { 'content-type': String(upstream.headers['content-type'] ?? '') })
      res.end(Buffer.from(await upstream.body.arrayBuffer()))
    })().catch(() => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    rpcBodies: () => [...bodies],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
