/**
 * A local HTTP server standing in for signal-cli's daemon in one module's tests: each request is
 * answered by a function of its method, path and body: at once, later (`{ later }`), never
 * (`'hold'`), or with headers and then silence (`'silent-body'`).
 */
import { EventEmitter, once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeRequest {
  readonly method: string
  readonly path: string
  readonly body: string
}

type Reply = { readonly status: number; readonly text: string; readonly type?: string }
export type FakeAnswer = Reply | { readonly later: Promise<Reply> } | 'hold' | 'silent-body'

export interface FakeDaemon {
  readonly origin: string
  /** Requests seen, in order. */
  readonly seen: FakeRequest[]
  /** Resolves once `count` requests were seen. */
  untilSeen(count: number): Promise<void>
  /** TCP connections accepted so far. */
  connections(): number
  close(): Promise<void>
}

function reply(res: ServerResponse, a: Reply): void {
  res.writeHead(a.status, { 'content-type': a.type ?? 'text/plain' })
  res.end(a.text)
}

export async function fakeDaemon(answer: (request: FakeRequest) => FakeAnswer): Promise<FakeDaemon> {
  const seen: FakeRequest[] = []
  const events = new EventEmitter()
  const held = new Set<ServerResponse>()
  let accepted = 0
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (chunk: Buffer) => parts.push(chunk))
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(parts).toString('utf8') }
      seen.push(request)
      events.emit('seen')
      const a = answer(request)
      if (a === 'hold') held.add(res)
      else if (a === 'silent-body') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(':\n\n')
        held.add(res)
      } else if ('later' in a) void a.later.then((r) => reply(res, r))
      else reply(res, a)
    })
  })
  server.on('connection', () => accepted++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    async untilSeen(count) {
      while (seen.length < count) await once(events, 'seen')
    },
    connections: () => accepted,
    close: async () => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
