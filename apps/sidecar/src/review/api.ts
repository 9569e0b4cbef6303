/**
 * The review part of the local documents API (issue #40; docs/review.md), behind the same guards
 * as the rest of `/v1` (loopback Host, allowed Origin, JSON bodies):
 *
 *   GET  /v1/docs/<docId>/text[?target=<root>&kind=text|xml]       → {text, markdown, base}
 *   GET  /v1/docs/<docId>/suggestions                              → {suggestions: [...]}
 *   POST /v1/docs/<docId>/suggestions {base, find, replace, note?, agent?, target?} → 201 {id}
 *   POST /v1/docs/<docId>/suggestions/<id>/accept|reject {}        → {status, at}
 *   …/comments: comment-routes.ts
 *
 * Errors are `{error: {code, message, detail?}}`: SUGGESTION_STALE, SUGGESTION_QUOTE_CHANGED and
 * SUGGESTION_DECIDED 409, an unknown document or suggestion 404, a viewer's suggestion or decision
 * 403 REVIEW_FORBIDDEN, bad input 400. Every change is made on a copy of the replica under this
 * account's own client id and handed to the document as one update (its `edit`), so it is stored
 * and sent like any change this sidecar makes. A bearer agent token (agent-tokens.ts) reaches
 * only its documents, and never decides.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createSuggestion, listSuggestions, readText, type Suggestion } from '@e2e-col/review'
import { z } from 'zod'
import { jsonBody, serveGuarded, type Answer } from '../http/serve.ts'
import { MAX_TOKEN_DOCS, TokenLimit, type AgentGrant, type AgentTokens } from './agent-tokens.ts'
import {
  ApiFailure,
  byline,
  changed,
  copy,
  decideSuggestion,
  DEFAULT_TARGET,
  GUARDED,
  peopleOf,
  refuseViewer,
  TargetSchema,
  targetOf,
  UUID,
  type ReviewedDoc,
} from './api-common.ts'
import { COMMENT_ROUTE, commentRoute, type CommentRouteOptions } from './comment-routes.ts'

export type { ReviewedDoc } from './api-common.ts'

const ROUTE = new RegExp(`^/v1/docs/(${UUID})/(text|suggestions)(?:/([0-9a-z]{8,32})/(accept|reject))?$`)
const TOKENS = '/v1/agent-tokens'

export interface ReviewApiOptions extends CommentRouteOptions {
  reviewed(docId: string): ReviewedDoc | undefined
  /** Agent tokens (review/agent-tokens.ts); without them a bearer token is refused as unknown. */
  readonly tokens?: Pick<AgentTokens, 'mint' | 'find'>
  /** The told-apart name of the person a client id writes for (undefined: unknown). */
  personOf?(docId: string, clientId: number): Promise<string | undefined>
  /** An agent token's suggestion just written (approval/: the person decides it from the phone). */
  agentSuggested?(s: AgentSuggestion): void
  now(): number
  /** A uint32 for entry ids (crypto in production). */
  random(): number
  readonly allowedOrigins: readonly string[]
  bind(): { host: string; port: number }
  ready(): boolean
}

/** A suggestion an agent token wrote, as the approval from the phone lists it. */
export interface AgentSuggestion {
  readonly docId: string
  readonly agent: string
  readonly id: string
  readonly find: string
  readonly replace: string
  readonly note: string | undefined
}

export interface ReviewApi {
  handles(path: string): boolean
  handle(req: IncomingMessage, res: ServerResponse): void
}

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
  const b = await jsonBody(req, Mint, GUARDED)
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
  const person =
    o.personOf === undefined ? undefined : (w: number) => o.personOf?.(docId, w) ?? Promise.resolve(undefined)
  const people = await peopleOf(
    all.map((s) => s.writer),
    person,
  )
  return { status: 200, json: { suggestions: all.map((s) => shown(s, people.get(s.writer))) } }
}

async function route(o: ReviewApiOptions, req: IncomingMessage, url: URL, method: string): Promise<Answer> {
  if (url.pathname === TOKENS) return mint(o, req, method)
  const grant = grantOf(o, req)
  const comments = COMMENT_ROUTE.exec(url.pathname)
  const [, docId = '', part, sid, verb] = comments ?? ROUTE.exec(url.pathname) ?? []
  if (grant !== undefined && !grant.docIds.includes(docId))
    throw new ApiFailure('REVIEW_AGENT_OUT_OF_SCOPE', 'this token does not name that document')
  if (comments !== null) return commentRoute(o, req, comments, method, grant)
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
    const b = await jsonBody(req, Suggest, GUARDED)
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
    const id = changed(d, (work) => createSuggestion(work, input))
    if (grant !== undefined)
      o.agentSuggested?.({ docId, agent: grant.name, id, find: b.find, replace: b.replace, note: b.note })
    return { status: 201, json: { id } }
  }
  await jsonBody(req, Decide, GUARDED)
  const decision = decideSuggestion(d, sid ?? '', verb === 'accept' ? 'accept' : 'reject', o.now())
  return { status: 200, json: { status: decision.status, at: decision.at } }
}

export function createReviewApi(o: ReviewApiOptions): ReviewApi {
  const guarded = { ...GUARDED, allowedOrigins: o.allowedOrigins, bind: o.bind, ready: o.ready }
  return {
    handles: (path) => path === TOKENS || ROUTE.test(path) || COMMENT_ROUTE.test(path),
    handle: (req, res) => serveGuarded(req, res, guarded, (url, method) => route(o, req, url, method)),
  }
}
