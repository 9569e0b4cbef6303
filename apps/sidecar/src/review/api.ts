/**
 * The review part of the local documents API (issue #40; docs/review.md), behind the same guards
 * as the rest of `/v1` (loopback Host, allowed Origin, JSON bodies):
 *
 *   GET  /v1/docs/<docId>/text[?target=<root>&kind=text|xml]       → {text, markdown, base}
 *   GET  /v1/docs/<docId>/suggestions                              → {suggestions: [...]}
 *   POST /v1/docs/<docId>/suggestions {base, find, replace, note?, agent?, target?} → 201 {id}
 *   POST /v1/docs/<docId>/suggestions/<id>/accept|reject {}        → {status, at}
 *
 * Errors are `{error: {code, message, detail?}}`: SUGGESTION_STALE, SUGGESTION_QUOTE_CHANGED and
 * SUGGESTION_DECIDED 409, an unknown document or suggestion 404, a viewer's suggestion or decision
 * 403 REVIEW_FORBIDDEN, bad input 400. Every change is made on a copy of the replica under this
 * account's own client id and handed to the document as one update (its `edit`), so it is stored
 * and sent like any change this sidecar makes. Not built yet: agent tokens and their scope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  acceptSuggestion,
  createSuggestion,
  decideWithout,
  listSuggestions,
  readText,
  ReviewError,
  type Suggestion,
  type Target,
} from '@e2e-col/review'
import * as Y from 'yjs'
import { z } from 'zod'
import { isApiError, isGuardRefusal } from '../http/api-error.ts'
import { readBody } from '../http/body.ts'
import { checkHost, checkOrigin } from '../http/guard.ts'
import { MAX_TOKEN_DOCS, TokenLimit, type AgentGrant, type AgentTokens } from './agent-tokens.ts'

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
const ROUTE = new RegExp(`^/v1/docs/(${UUID})/(text|suggestions)(?:/([0-9a-z]{8,32})/(accept|reject))?$`)
const TOKENS = '/v1/agent-tokens'

/** One served document as this API sees it. */
export interface ReviewedDoc {
  /** The replica: read (copied), never written here. */
  readonly doc: Y.Doc
  /** Applies a change this sidecar makes: durable and sent to the group; false when not applied. */
  edit(update: Uint8Array): boolean
  role(): 'editor' | 'commenter' | 'viewer'
  /** A client id under this account's author tag (decision 0023). */
  writerId(): number
}

export interface ReviewApiOptions {
  reviewed(docId: string): ReviewedDoc | undefined
  /** Agent tokens (review/agent-tokens.ts); without them a bearer token is refused as unknown. */
  readonly tokens?: Pick<AgentTokens, 'mint' | 'find'>
  /** The told-apart name of the person a client id writes for (undefined: unknown). */
  personOf?(docId: string, clientId: number): Promise<string | undefined>
  now(): number
  /** A uint32 for entry ids (crypto in production). */
  random(): number
  readonly allowedOrigins: readonly string[]
  bind(): { host: string; port: number }
  ready(): boolean
}

export interface ReviewApi {
  handles(path: string): boolean
  handle(req: IncomingMessage, res: ServerResponse): void
}

type ApiCode =
  | 'REVIEW_UNKNOWN_DOCUMENT'
  | 'REVIEW_AGENT_TOKEN_UNKNOWN'
  | 'REVIEW_AGENT_OUT_OF_SCOPE'
  | 'REVIEW_AGENT_CANNOT_DECIDE'
  | 'REVIEW_AGENT_CANNOT_MINT'
  | 'REVIEW_FORBIDDEN'
  | 'REVIEW_COMMENTER_CANNOT_DECIDE'
  | 'REVIEW_BAD_REQUEST'
  | 'REVIEW_METHOD_NOT_ALLOWED'
  | 'REVIEW_NOT_APPLIED'
const API_STATUS: Record<ApiCode, number> = {
  REVIEW_UNKNOWN_DOCUMENT: 404,
  REVIEW_AGENT_TOKEN_UNKNOWN: 401,
  REVIEW_AGENT_OUT_OF_SCOPE: 403,
  REVIEW_AGENT_CANNOT_DECIDE: 403,
  REVIEW_AGENT_CANNOT_MINT: 403,
  REVIEW_FORBIDDEN: 403,
  REVIEW_COMMENTER_CANNOT_DECIDE: 403,
  REVIEW_BAD_REQUEST: 400,
  REVIEW_METHOD_NOT_ALLOWED: 405,
  REVIEW_NOT_APPLIED: 503,
}
class ApiFailure extends Error {
  readonly code: ApiCode
  constructor(code: ApiCode, message: string) {
    super(message)
    this.code = code
  }
}

const MODEL_STATUS: Partial<Record<ReviewError['code'], number>> = {
  SUGGESTION_STALE: 409,
  SUGGESTION_QUOTE_CHANGED: 409,
  SUGGESTION_DECIDED: 409,
  REVIEW_TOO_MANY: 409,
  REVIEW_NOT_FOUND: 404,
}

const TargetSchema = z.strictObject({ name: z.string().min(1).max(256), kind: z.enum(['text', 'xml']) })
const Suggest = z.strictObject({
  base: z.string().min(1),
  find: z.string(),
  replace: z.string(),
  note: z.string().optional(),
  agent: z.string().optional(),
  target: TargetSchema.optional(),
})
const Decide = z.strictObject({})
const Mint = z.strictObject({
  docs: z
    .array(z.string().regex(new RegExp(`^${UUID}$`)))
    .min(1)
    .max(MAX_TOKEN_DOCS),
  name: z.string().min(1).max(256).default('Agent'),
})
const DEFAULT_TARGET: Target = { name: 'text', kind: 'text' }

async function bodyOf<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    throw new ApiFailure('REVIEW_BAD_REQUEST', 'request bodies must be JSON (Content-Type: application/json)')
  const text = await readBody(req)
  let json: unknown
  try {
    json = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    throw new ApiFailure('REVIEW_BAD_REQUEST', 'the request body is not JSON')
  }
  const r = schema.safeParse(json)
  if (!r.success)
    throw new ApiFailure('REVIEW_BAD_REQUEST', `bad input: ${z.prettifyError(r.error).split('\n')[0] ?? ''}`)
  return r.data
}

function targetOf(url: URL): Target {
  const name = url.searchParams.get('target')
  if (name === null) return DEFAULT_TARGET
  const r = TargetSchema.safeParse({ name, kind: url.searchParams.get('kind') ?? 'text' })
  if (!r.success) throw new ApiFailure('REVIEW_BAD_REQUEST', 'target names a root and kind is text or xml')
  return r.data
}

/** Runs `change` on a copy of the replica under this account's id and applies what it wrote. */
function changed<T>(d: ReviewedDoc, change: (work: Y.Doc) => T): T {
  const work = new Y.Doc({ gc: false })
  work.clientID = d.writerId()
  Y.applyUpdate(work, Y.encodeStateAsUpdate(d.doc))
  const before = Y.encodeStateVector(work)
  const out = change(work)
  if (!d.edit(Y.encodeStateAsUpdate(work, before)))
    throw new ApiFailure('REVIEW_NOT_APPLIED', 'the document did not take the change')
  return out
}

/** "Claude, for Alice": the agent's name, then the person whose account wrote the entry. */
const byline = (agent: string | undefined, person: string | undefined): string | undefined =>
  agent === undefined ? person : `${agent}, for ${person ?? 'someone unknown'}`

const shown = (s: Suggestion, person: string | undefined) => ({
  id: s.id,
  writer: s.writer,
  ...(s.entry.agent === undefined ? {} : { agent: s.entry.agent }),
  ...(byline(s.entry.agent, person) === undefined ? {} : { by: byline(s.entry.agent, person) }),
  target: s.entry.target,
  find: s.entry.find,
  replace: s.entry.replace,
  note: s.entry.note,
  at: s.entry.at,
  status: s.status,
  stale: s.stale,
  ...(s.decidedBy === undefined ? {} : { decidedBy: s.decidedBy }),
})

type Answer = { status: number; json: unknown }

function refuseViewer(d: ReviewedDoc, what: string): void {
  if (d.role() === 'viewer') throw new ApiFailure('REVIEW_FORBIDDEN', `you can view this document, not ${what}`)
}

/** Only an editor accepts or rejects: a commenter may suggest, not decide. */
function refuseNonEditor(d: ReviewedDoc): void {
  refuseViewer(d, 'decide on suggestions')
  if (d.role() === 'commenter')
    throw new ApiFailure(
      'REVIEW_COMMENTER_CANNOT_DECIDE',
      'you can comment on this document and suggest changes; only its editors accept or reject them',
    )
}

/** The grant of a bearer token the request presents; undefined without one (the person's own call). */
function grantOf(o: ReviewApiOptions, req: IncomingMessage): AgentGrant | undefined {
  const header = req.headers.authorization
  if (header === undefined) return undefined
  const m = /^Bearer ([^\s]{1,200})$/.exec(header)
  const grant = m?.[1] === undefined ? undefined : o.tokens?.find(m[1])
  if (grant === undefined) throw new ApiFailure('REVIEW_AGENT_TOKEN_UNKNOWN', 'this sidecar did not mint that token')
  return grant
}

/** `POST /v1/agent-tokens {docs, name}`: the person's own call mints a read-and-suggest token. */
async function mint(o: ReviewApiOptions, req: IncomingMessage, method: string): Promise<Answer> {
  if (method !== 'POST') throw new ApiFailure('REVIEW_METHOD_NOT_ALLOWED', `${method} is not allowed here; use POST`)
  if (req.headers.authorization !== undefined)
    throw new ApiFailure('REVIEW_AGENT_CANNOT_MINT', 'an agent token cannot mint tokens')
  const b = await bodyOf(req, Mint)
  const unknown = b.docs.find((id) => o.reviewed(id) === undefined)
  if (unknown !== undefined) throw new ApiFailure('REVIEW_UNKNOWN_DOCUMENT', `this sidecar does not serve ${unknown}`)
  if (o.tokens === undefined) throw new ApiFailure('REVIEW_NOT_APPLIED', 'this sidecar keeps no agent tokens')
  try {
    const token = o.tokens.mint({ name: b.name, docIds: b.docs }, o.now())
    return { status: 201, json: { token, name: b.name, docs: b.docs } }
  } catch (error) {
    if (error instanceof TokenLimit) throw new ApiFailure('REVIEW_BAD_REQUEST', error.message)
    throw error
  }
}

async function listed(o: ReviewApiOptions, docId: string, d: ReviewedDoc): Promise<Answer> {
  const all = listSuggestions(copy(d.doc))
  const people = new Map<number, string | undefined>()
  for (const s of all) if (!people.has(s.writer)) people.set(s.writer, await o.personOf?.(docId, s.writer))
  return { status: 200, json: { suggestions: all.map((s) => shown(s, people.get(s.writer))) } }
}

async function route(o: ReviewApiOptions, req: IncomingMessage, url: URL, method: string): Promise<Answer> {
  if (url.pathname === TOKENS) return mint(o, req, method)
  const grant = grantOf(o, req)
  const [, docId = '', part, sid, verb] = ROUTE.exec(url.pathname) ?? []
  if (grant !== undefined && !grant.docIds.includes(docId))
    throw new ApiFailure('REVIEW_AGENT_OUT_OF_SCOPE', 'this token does not name that document')
  if (grant !== undefined && verb !== undefined)
    throw new ApiFailure('REVIEW_AGENT_CANNOT_DECIDE', 'an agent suggests; only an editor accepts or rejects')
  const expect = verb !== undefined ? 'POST' : part === 'text' ? 'GET' : method === 'POST' ? 'POST' : 'GET'
  if (method !== expect)
    throw new ApiFailure('REVIEW_METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${expect}`)
  const d = o.reviewed(docId)
  if (d === undefined) throw new ApiFailure('REVIEW_UNKNOWN_DOCUMENT', 'this sidecar does not serve that document')
  if (part === 'text') return { status: 200, json: readText(copy(d.doc), targetOf(url)) }
  if (verb === undefined && method === 'GET') return listed(o, docId, d)
  if (verb === undefined) {
    refuseViewer(d, 'suggest changes')
    const b = await bodyOf(req, Suggest)
    const input = {
      target: b.target ?? DEFAULT_TARGET,
      base: b.base,
      find: b.find,
      replace: b.replace,
      at: o.now(),
      random: o.random,
      ...(b.note === undefined ? {} : { note: b.note }),
      // A token's suggestions carry its name, whatever the body says.
      ...(grant !== undefined ? { agent: grant.name } : b.agent === undefined ? {} : { agent: b.agent }),
    }
    return { status: 201, json: { id: changed(d, (work) => createSuggestion(work, input)) } }
  }
  await bodyOf(req, Decide)
  refuseNonEditor(d)
  const id = sid ?? ''
  const decision = changed(d, (work) =>
    verb === 'accept' ? acceptSuggestion(work, id, o.now()) : decideWithout(work, id, 'rejected', o.now()),
  )
  return { status: 200, json: { status: decision.status, at: decision.at } }
}

/** A read-only copy, so listing never creates a root type in the replica itself. */
function copy(doc: Y.Doc): Y.Doc {
  const work = new Y.Doc({ gc: false })
  Y.applyUpdate(work, Y.encodeStateAsUpdate(doc))
  return work
}

function failureOf(error: unknown): { status: number; code: string; message: string; detail?: string; guard: boolean } {
  if (isApiError(error))
    return { status: error.status, code: error.code, message: error.message, guard: isGuardRefusal(error) }
  if (error instanceof ApiFailure)
    return { status: API_STATUS[error.code], code: error.code, message: error.message, guard: false }
  if (error instanceof ReviewError)
    return {
      status: MODEL_STATUS[error.code] ?? 400,
      code: error.code,
      message: error.message,
      ...(error.detail === undefined ? {} : { detail: error.detail }),
      guard: false,
    }
  return { status: 503, code: 'REVIEW_NOT_APPLIED', message: 'unexpected failure; nothing was changed', guard: false }
}

/** A CORS preflight: only from an allowed page (the editor pages POST decisions with a JSON body). */
function preflight(res: ServerResponse, cors: string | undefined): void {
  if (cors === undefined) throw new ApiFailure('REVIEW_BAD_REQUEST', 'a preflight needs an allowed Origin')
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

function answer(res: ServerResponse, a: Answer, cors: string | undefined): void {
  const body = Buffer.from(JSON.stringify(a.json))
  res
    .writeHead(a.status, {
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      vary: 'Origin',
      ...(cors === undefined ? {} : { 'access-control-allow-origin': cors }),
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.byteLength),
    })
    .end(body)
}

export function createReviewApi(o: ReviewApiOptions): ReviewApi {
  return {
    handles: (path) => path === TOKENS || ROUTE.test(path),
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://sidecar')
      const method = req.method ?? 'GET'
      let cors: string | undefined
      const fail = (error: unknown): void => {
        if (!req.complete) {
          res.shouldKeepAlive = false
          res.once('finish', () => req.destroy())
        }
        if (res.headersSent) return
        const { guard, status, ...e } = failureOf(error)
        answer(res, { status, json: { error: e } }, guard ? undefined : cors)
      }
      try {
        checkHost(req.headers.host, o.bind())
        cors = checkOrigin(req, o.allowedOrigins)
        if (method === 'OPTIONS') return preflight(res, cors)
        if (!o.ready()) throw new ApiFailure('REVIEW_NOT_APPLIED', 'the sidecar is not serving')
      } catch (error) {
        return fail(error)
      }
      route(o, req, url, method).then((a) => answer(res, a, cors), fail)
    },
  }
}
