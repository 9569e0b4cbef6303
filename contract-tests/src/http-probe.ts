/**
 * Raw HTTP probes for what a client library would hide: exact status codes, empty bodies, headers.
 * undici for ordinary requests; a bare socket where the Host header itself is under test.
 */
import { connect } from 'node:net'
import { request } from 'undici'

/** One answer, body as text. */
export interface HttpAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** Sends one request and reads the whole answer. */
export async function httpCall(
  baseUrl: string,
  path: string,
  init: { method?: 'GET' | 'POST' | 'PUT' | 'OPTIONS'; body?: string; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const res = await request(new URL(path, baseUrl), {
    method: init.method ?? 'GET',
    headers: init.headers ?? {},
    body: init.body ?? null,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  })
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() }
}

/** A JSON-RPC POST: `body` is sent verbatim when a string, else JSON-encoded. */
export async function rpcCall(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer & { json: unknown }> {
  const answer = await httpCall(baseUrl, '/api/v1/rpc', {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  })
  return { ...answer, json: answer.text === '' ? undefined : JSON.parse(answer.text) }
}

/** One well-formed request object, `{jsonrpc: '2.0', method, id, params}`: id 1 unless given, no params member without params. */
export function rpcRequest(method: unknown, params?: unknown, id: unknown = 1): Record<string, unknown> {
  return { jsonrpc: '2.0', method, id, ...(params === undefined ? {} : { params }) }
}

/** Sends one well-formed call ({@link rpcRequest}). */
export function rpcAnswer(
  baseUrl: string,
  method: unknown,
  params?: unknown,
  id?: unknown,
): Promise<HttpAnswer & { json: unknown }> {
  return rpcCall(baseUrl, rpcRequest(method, params, id))
}

/** A successful single call's `result`; throws with the error object otherwise. */
export async function rpcResult(baseUrl: string, method: string, params?: Record<string, unknown>): Promise<unknown> {
  const answer = await rpcAnswer(baseUrl, method, params)
  const json = answer.json as { result?: unknown; error?: unknown }
  if (!('result' in json)) throw new Error(`${method} failed: ${JSON.stringify(json.error)}`)
  return json.result
}

/**
 * Sends a hand-written HTTP/1.1 request over a socket and returns the status code, so a test can send
 * any Host header or none at all (HTTP clients insist on a correct one).
 */
export function rawStatus(baseUrl: string, lines: readonly string[]): Promise<number> {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname)
    let received = ''
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer within 20 s')))
    const blank = lines.indexOf('')
    const head = blank === -1 ? [...lines] : lines.slice(0, blank)
    const body = blank === -1 ? '' : lines.slice(blank + 1).join('\r\n')
    socket.on('connect', () => socket.write(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`))
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1')
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received)
      if (match?.[1] !== undefined) {
        resolve(Number(match[1]))
        socket.destroy()
      }
    })
    socket.on('error', reject)
    socket.on('close', () =>
      reject(new Error(`connection closed before a status line: ${JSON.stringify(received.slice(0, 80))}`)),
    )
  })
}
