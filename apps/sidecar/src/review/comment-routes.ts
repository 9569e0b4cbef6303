/**
 * The comment routes of the review API (issue #40; docs/review.md "Comments"):
 *
 *   GET  /v1/docs/<docId>/comments                                  → {comments: [thread…]}
 *   POST /v1/docs/<docId>/comments {index, length, quote?, body, target?} → 201 {id, mentioned}
 *   POST /v1/docs/<docId>/comments/<id>/replies {body}              → 201 {id, mentioned}
 *   POST /v1/docs/<docId>/comments/<id>/resolve|reopen {}           → {resolved}
 *
 * A viewer may list, not write (403 REVIEW_VIEWER_CANNOT_COMMENT); commenters and editors write;
 * an agent token comments and replies under its name, and never resolves. The body is at most
 * `maxNoteBytes`, a thread `maxRepliesPerThread` replies (the model's REVIEW_TOO_LARGE 400 and
 * REVIEW_TOO_MANY 409). Who is mentioned is read here from the group's members, never from the
 * request; the mention messages are sent by review/mention-messages.ts (decision 0038).
 */
import type { IncomingMessage } from 'node:http'
import {
  addComment,
  listComments,
  parseMentions,
  readText,
  replyTo,
  resolveComment,
  type Comment,
  type CommentEntry,
} from '@e2e-col/review'
import { z } from 'zod'
import { jsonBody, type Answer } from '../http/serve.ts'
import type { AgentGrant } from './agent-tokens.ts'
import {
  ApiFailure,
  byline,
  changed,
  copy,
  DEFAULT_TARGET,
  GUARDED,
  peopleOf,
  TargetSchema,
  UUID,
  type ReviewedDoc,
} from './api-common.ts'

export const COMMENT_ROUTE = new RegExp(`^/v1/docs/(${UUID})/comments(?:/([0-9a-z]{8,32})/(replies|resolve|reopen))?$`)

/** A comment or reply as written: what a mention message quotes. */
export interface Commented {
  readonly docId: string
  readonly commentId: string
  readonly numbers: readonly string[]
  readonly quote: string
  readonly body: string
  /** The agent token's name when an agent wrote it. */
  readonly agent?: string
}

export interface CommentRouteOptions {
  reviewed(docId: string): ReviewedDoc | undefined
  personOf?(docId: string, clientId: number): Promise<string | undefined>
  /** The document's members (number and shown name) whom a comment can mention. */
  members?(docId: string): Promise<readonly { number: string; name?: string }[]>
  /** Sends the mention messages of a comment just written; answers how many were taken to be sent. */
  mentioned?(c: Commented): Promise<number>
  now(): number
  random(): number
}

const Body = z
  .string()
  .min(1)
  .max(64 * 1024)
const Add = z.strictObject({
  index: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  length: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  quote: z.string().optional(),
  body: Body,
  target: TargetSchema.optional(),
})
const Reply = z.strictObject({ body: Body })
const Empty = z.strictObject({})

type Written = { id: string; writer: number; entry: CommentEntry }
const writtenBy = (w: Written, people: Map<number, string | undefined>) => ({
  id: w.id,
  writer: w.writer,
  ...(w.entry.agent === undefined ? {} : { agent: w.entry.agent }),
  ...(byline(w.entry.agent, people.get(w.writer)) === undefined
    ? {}
    : { by: byline(w.entry.agent, people.get(w.writer)) }),
  body: w.entry.body,
  at: w.entry.at,
})
const shown = (c: Comment, people: Map<number, string | undefined>) => ({
  ...writtenBy(c, people),
  target: c.entry.target,
  quote: c.entry.quote,
  current: c.current,
  orphaned: c.orphaned,
  resolved: c.resolved,
  replies: c.replies.map((r) => writtenBy(r, people)),
})

async function listed(o: CommentRouteOptions, docId: string, d: ReviewedDoc): Promise<Answer> {
  const all = listComments(copy(d.doc))
  const writers = all.flatMap((c) => [c.writer, ...c.replies.map((r) => r.writer)])
  const people = await peopleOf(
    writers,
    o.personOf === undefined ? undefined : (w) => o.personOf?.(docId, w) ?? Promise.resolve(undefined),
  )
  return { status: 200, json: { comments: all.map((c) => shown(c, people)) } }
}

async function mentionsIn(o: CommentRouteOptions, docId: string, body: string): Promise<string[]> {
  const members = (await o.members?.(docId)) ?? []
  return parseMentions(body, members)
}

const agentOf = (grant: AgentGrant | undefined) => (grant === undefined ? {} : { agent: grant.name })

async function written(o: CommentRouteOptions, c: Commented): Promise<Answer> {
  const mentioned = c.numbers.length === 0 || o.mentioned === undefined ? 0 : await o.mentioned(c)
  return { status: 201, json: { id: c.commentId, mentioned } }
}

async function add(
  o: CommentRouteOptions,
  req: IncomingMessage,
  docId: string,
  d: ReviewedDoc,
  grant: AgentGrant | undefined,
): Promise<Answer> {
  const b = await jsonBody(req, Add, GUARDED)
  const target = b.target ?? DEFAULT_TARGET
  if (b.quote !== undefined && readText(copy(d.doc), target).text.slice(b.index, b.index + b.length) !== b.quote)
    throw new ApiFailure('REVIEW_COMMENT_QUOTE_CHANGED', 'the text at that range changed; select it again')
  const numbers = await mentionsIn(o, docId, b.body)
  const input = {
    target,
    index: b.index,
    length: b.length,
    body: b.body,
    mentions: numbers,
    at: o.now(),
    random: o.random,
    ...(grant === undefined ? {} : { agent: grant.name }),
  }
  const id = changed(d, (work) => addComment(work, input))
  const quote = listComments(copy(d.doc)).find((c) => c.id === id)?.entry.quote ?? ''
  return written(o, { docId, commentId: id, numbers, quote, body: b.body, ...agentOf(grant) })
}

async function reply(
  o: CommentRouteOptions,
  req: IncomingMessage,
  docId: string,
  d: ReviewedDoc,
  cid: string,
  grant: AgentGrant | undefined,
): Promise<Answer> {
  const b = await jsonBody(req, Reply, GUARDED)
  const numbers = await mentionsIn(o, docId, b.body)
  const input = {
    body: b.body,
    mentions: numbers,
    at: o.now(),
    random: o.random,
    ...(grant === undefined ? {} : { agent: grant.name }),
  }
  const id = changed(d, (work) => replyTo(work, cid, input))
  const quote = listComments(copy(d.doc)).find((c) => c.id === cid)?.entry.quote ?? ''
  return written(o, { docId, commentId: id, numbers, quote, body: b.body, ...agentOf(grant) })
}

/** Serves a path {@link COMMENT_ROUTE} matched; the grant (if any) was checked for this document. */
export async function commentRoute(
  o: CommentRouteOptions,
  req: IncomingMessage,
  path: RegExpExecArray,
  method: string,
  grant: AgentGrant | undefined,
): Promise<Answer> {
  const [, docId = '', cid, verb] = path
  const expect = verb === undefined && method === 'GET' ? 'GET' : 'POST'
  if (method !== expect)
    throw new ApiFailure('REVIEW_METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${expect}`)
  if (grant !== undefined && (verb === 'resolve' || verb === 'reopen'))
    throw new ApiFailure('REVIEW_AGENT_CANNOT_DECIDE', 'an agent comments; only a person resolves or reopens a thread')
  const d = o.reviewed(docId)
  if (d === undefined) throw new ApiFailure('REVIEW_UNKNOWN_DOCUMENT', 'this sidecar does not serve that document')
  if (method === 'GET') return listed(o, docId, d)
  if (d.role() === 'viewer')
    throw new ApiFailure(
      'REVIEW_VIEWER_CANNOT_COMMENT',
      'you can view this document and read its comments, not write them',
    )
  if (verb === undefined) return add(o, req, docId, d, grant)
  if (verb === 'replies') return reply(o, req, docId, d, cid ?? '', grant)
  await jsonBody(req, Empty, GUARDED)
  const resolved = verb === 'resolve'
  changed(d, (work) => resolveComment(work, cid ?? '', resolved, o.now(), o.random))
  return { status: 200, json: { resolved } }
}
