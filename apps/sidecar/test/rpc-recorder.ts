/**
 * A pass-through in front of a daemon's HTTP endpoint that records every JSON-RPC call made
 * through it (method and params), so a test can say what a sidecar asked and what it did not.
 * Everything else (the events stream included) is piped as it is.
 */
import { createServer, request, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'

export interface RecordedCall {
  readonly method: string
  readonly params: Record<string, unknown>
}

export interface RpcRecorder {
  readonly url: string
  readonly calls: RecordedCall[]
}

function record(body: string, calls: RecordedCall[]): void {
  try {
    const parsed = JSON.parse(body) as unknown
    for (const one of Array.isArray(parsed) ? parsed : [parsed]) {
      const r = one as { method?: unknown; params?: unknown }
      if (typeof r.method !== 'string') continue
      const params = typeof r.params === 'object' && r.params !== null ? (r.params as Record<string, unknown>) : {}
      calls.push({ method: r.method, params })
    }
  } catch {
    // Not JSON: nothing to record; the daemon answers it as it would.
  }
}

export async function startRpcRecorder(target: string): Promise<RpcRecorder> {
  const to = new URL(target)
  const calls: RecordedCall[] = []
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      if ((req.url ?? '').startsWith('/api/v1/rpc')) record(body.toString('utf8'), calls)
      const out = request(
        {
          host: to.hostname,
          port: to.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: to.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      out.on('error', () => res.destroy())
      res.on('close', () => out.destroy())
      out.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  const port = (server.address() as AddressInfo).port
  return { url: `http://127.0.0.1:${port}`, calls }
}
