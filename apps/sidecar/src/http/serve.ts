/**
 * What the history and review APIs share around their routes: the guards (loopback Host, allowed
 * Origin), the CORS preflight an allowed page needs before it POSTs JSON, the JSON answer, a
 * bounded JSON body checked against a schema, and the mapping of a failure to its answer. Each API
 * names its own failures (`own`) and its fallback code; a refused Host or Origin is answered
 * without CORS headers, and an unread body drops the connection once the answer is out.
 * @see docs/documents.md
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { isApiError, isGuardRefusal } from './api-error.ts'
import { readBody } from './body.ts'
import { checkHost, checkOrigin } from './guard.ts'

/** An answer: JSON, or bytes as `application/octet-stream`. */
export type Answer = { status: number; json?: unknown; bytes?: Uint8Array }

/** How an error is answered: status, stable code, message and any fields beside them. */
export interface Failure {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly extra?: Readonly<Record<string, unknown>>
}

export interface GuardedApi {
  readonly allowedOrigins: readonly string[]
  bind(): { host: string; port: number }
  ready(): boolean
  /** The API's own failure for this error (undefined: not one of its own). */
  own(error: unknown): Failure | undefined
  /** The failure for anything else: the sidecar not serving, or an unexpected error. */
  fallback(error: unknown): Failure
  /** The error a bad request is (a preflight without an allowed Origin, a body not JSON). */
  badRequest(message: string): Error
}

export function answer(res: ServerResponse, a: Answer, cors: string | undefined): void {
  const body = a.bytes ?? Buffer.from(JSON.stringify(a.json))
  res
    .writeHead(a.status, {
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      vary: 'Origin',
      ...(cors === undefined ? {} : { 'access-control-allow-origin': cors }),
      'content-type': a.bytes === undefined ? 'application/json; charset=utf-8' : 'application/octet-stream',
      'content-length': String(body.byteLength),
    })
    .end(body)
}

/** A CORS preflight: only from an allowed page, for GET and POST with a JSON body. */
function preflight(res: ServerResponse, cors: string | undefined, api: GuardedApi): void {
  if (cors === undefined) throw api.badRequest('a preflight needs an allowed Origin')
  res
    .writeHead(204, {
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'content-type',
      'access-control-allow-origin': cors,
      'access-control-max-age': '600',
      vary: 'Origin',
    })
    .end()
}

/** The JSON body (empty: `{}`), parsed by `schema`; else the API's bad request. */
export async function jsonBody<T>(
  req: IncomingMessage,
  schema: z.ZodType<T>,
  api: Pick<GuardedApi, 'badRequest'>,
): Promise<T> {
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    throw api.badRequest('request bodies must be JSON (Content-Type: application/json)')
  const text = await readBody(req)
  let json: unknown
  try {
    json = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    throw api.badRequest('the request body is not JSON')
  }
  return valid(schema, json, api)
}

/** `value` parsed by `schema`, else the API's bad request naming the first problems. */
export function valid<T>(schema: z.ZodType<T>, value: unknown, api: Pick<GuardedApi, 'badRequest'>): T {
  const r = schema.safeParse(value)
  if (!r.success) throw api.badRequest(`bad input: ${z.prettifyError(r.error).split('\n').slice(0, 3).join('; ')}`)
  return r.data
}

/** The failure an error is answered with, and whether it is a guard's (no CORS headers then). */
export function failureOf(error: unknown, api: Pick<GuardedApi, 'own' | 'fallback'>): Failure & { guard: boolean } {
  if (isApiError(error))
    return { status: error.status, code: error.code, message: error.message, guard: isGuardRefusal(error) }
  return { ...(api.own(error) ?? api.fallback(error)), guard: false }
}

/** Serves one request: guards, preflight, readiness, then `route`; every failure answered as {error}. */
export function serveGuarded(
  req: IncomingMessage,
  res: ServerResponse,
  api: GuardedApi,
  route: (url: URL, method: string) => Promise<Answer>,
): void {
  const url = new URL(req.url ?? '/', 'http://sidecar')
  const method = req.method ?? 'GET'
  let cors: string | undefined
  const fail = (error: unknown): void => {
    // An unread body is dropped with the connection once the answer is out.
    if (!req.complete) {
      res.shouldKeepAlive = false
      res.once('finish', () => req.destroy())
    }
    if (res.headersSent) return
    const { guard, status, code, message, extra } = failureOf(error, api)
    answer(res, { status, json: { error: { ...extra, code, message } } }, guard ? undefined : cors)
  }
  try {
    checkHost(req.headers.host, api.bind())
    cors = checkOrigin(req, api.allowedOrigins)
    if (method === 'OPTIONS') return preflight(res, cors, api)
    if (!api.ready()) throw new NotServing()
  } catch (error) {
    return fail(error)
  }
  route(url, method).then((a) => answer(res, a, cors), fail)
}

/** The sidecar is starting or stopping: answered by the API's fallback. */
export class NotServing extends Error {
  constructor() {
    super('the sidecar is not serving')
    this.name = 'NotServing'
  }
}
