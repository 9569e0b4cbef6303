/**
 * One HTTP request to the daemon over Node's own `node:http`: the status, the headers and the body
 * as a stream, with a deadline for the answer's headers and one for the body's silences. The
 * sidecar's server already loads `node:http`; a client library beside it cost the idle process
 * about 8 MiB (decisions/0043).
 */
import { Agent, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { SignalCliError } from './errors.ts'

/** Largest JSON-RPC response body read (a long `listGroups` fits many times over). */
export const MAX_RPC_RESPONSE_BYTES = 16 * 1024 * 1024

export interface HttpAnswer {
  readonly statusCode: number
  readonly headers: IncomingHttpHeaders
  /** The body, read as chunks; reading it after a silence longer than `bodyIdleMs` throws `BODY_TIMEOUT`. */
  readonly body: IncomingMessage
}

export interface HttpAsk {
  readonly method: 'GET' | 'POST'
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** The answer's headers must start arriving within this long of a silent connection. */
  readonly headersTimeoutMs: number
  /** The body may be silent at most this long between chunks. */
  readonly bodyIdleMs: number
  readonly signal?: AbortSignal | undefined
}

/** Stable codes of the two deadlines, read by callers as the reason a request failed. */
export type HttpTimeoutCode = 'HEADERS_TIMEOUT' | 'BODY_TIMEOUT'

function timeout(code: HttpTimeoutCode, ms: number): Error {
  return Object.assign(new Error(`no ${code === 'HEADERS_TIMEOUT' ? 'answer' : 'data'} within ${ms} ms`), { code })
}

/** Connections kept open between requests (signal-cli's daemon serves each on its own thread). */
export function keptAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets, timeout: 10_000 })
}

/** Sends one request; resolves once the answer's headers arrived. Network failures reject with Node's own error. */
export function exchange(agent: Agent | undefined, url: string, ask: HttpAsk): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: ask.method,
      ...(agent === undefined ? {} : { agent }),
      headers: {
        ...ask.headers,
        ...(ask.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(ask.body)) }),
      },
      ...(ask.signal === undefined ? {} : { signal: ask.signal }),
    })
    let answer: IncomingMessage | undefined
    req.setTimeout(ask.headersTimeoutMs, () => {
      if (answer === undefined) req.destroy(timeout('HEADERS_TIMEOUT', ask.headersTimeoutMs))
      else answer.destroy(timeout('BODY_TIMEOUT', ask.bodyIdleMs))
    })
    // Kept for the request's life: an error after the answer (a cut body) must not go unheard.
    req.on('error', reject)
    req.once('response', (res) => {
      answer = res
      req.setTimeout(ask.bodyIdleMs)
      resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res })
    })
    req.end(ask.body)
  })
}

/** Most of an unwanted body read so its connection can serve again; a longer one closes the connection. */
const DISCARD_BYTES = 64 * 1024

/** Reads and drops a body nobody needs (an error page). */
export async function discard(body: IncomingMessage): Promise<void> {
  let read = 0
  try {
    for await (const chunk of body) {
      read += (chunk as Buffer).byteLength
      if (read > DISCARD_BYTES) return void body.destroy()
    }
  } catch {
    // A cut connection has nothing left to read.
  }
}

/** The body as text, refused (SIDECAR_SIGNAL_BAD_RESPONSE) past `maxBytes`. */
export async function readCapped(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const parts: Uint8Array[] = []
  let size = 0
  for await (const part of body) {
    size += part.byteLength
    if (size > maxBytes)
      throw new SignalCliError('SIDECAR_SIGNAL_BAD_RESPONSE', `signal-cli response larger than ${maxBytes} bytes`)
    parts.push(part)
  }
  return Buffer.concat(parts).toString('utf8')
}
