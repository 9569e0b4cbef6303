/**
 * What the suggestion and comment routes of the review API share: their failures (stable codes,
 * the status each is answered with, the model's own mapped), the served document as they see it,
 * and making a change on a copy of the replica under this account's own client id.
 * @see docs/review.md "The local HTTP API"
 */
import { acceptSuggestion, decideWithout, ReviewError, type InsertedRange, type Target } from '@e2e-col/review'
import * as Y from 'yjs'
import { z } from 'zod'
import { NotServing, type Failure } from '../http/serve.ts'

export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

/** One served document as this API sees it. */
export interface ReviewedDoc {
  /** The replica: read (copied), never written here. */
  readonly doc: Y.Doc
  /** Applies a change this sidecar makes: durable and sent to the group; false when not applied. */
  edit(update: Uint8Array): boolean
  role(): 'editor' | 'commenter' | 'viewer'
  /** A client id under this account's author tag (decision 0023). */
  writerId(): number
  /** Keeps this sidecar's acceptance of suggestion `id` (own-acceptances.ts), durable when this returns. */
  accepted?(id: string, applied: InsertedRange): void
}

export type ApiCode =
  | 'REVIEW_UNKNOWN_DOCUMENT'
  | 'REVIEW_AGENT_TOKEN_UNKNOWN'
  | 'REVIEW_AGENT_OUT_OF_SCOPE'
  | 'REVIEW_AGENT_CANNOT_DECIDE'
  | 'REVIEW_AGENT_CANNOT_MINT'
  | 'REVIEW_FORBIDDEN'
  | 'REVIEW_VIEWER_CANNOT_COMMENT'
  | 'REVIEW_COMMENTER_CANNOT_DECIDE'
  | 'REVIEW_COMMENT_QUOTE_CHANGED'
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
  REVIEW_VIEWER_CANNOT_COMMENT: 403,
  REVIEW_COMMENTER_CANNOT_DECIDE: 403,
  REVIEW_COMMENT_QUOTE_CHANGED: 409,
  REVIEW_BAD_REQUEST: 400,
  REVIEW_METHOD_NOT_ALLOWED: 405,
  REVIEW_NOT_APPLIED: 503,
}
export class ApiFailure extends Error {
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

/** How the shared server (http/serve.ts) answers this API's failures. */
export const GUARDED = {
  own(error: unknown): Failure | undefined {
    if (error instanceof ApiFailure) return { status: API_STATUS[error.code], code: error.code, message: error.message }
    if (!(error instanceof ReviewError)) return undefined
    const detail = error.detail === undefined ? {} : { extra: { detail: error.detail } }
    return { status: MODEL_STATUS[error.code] ?? 400, code: error.code, message: error.message, ...detail }
  },
  fallback: (error: unknown): Failure => ({
    status: 503,
    code: 'REVIEW_NOT_APPLIED',
    message: error instanceof NotServing ? error.message : 'unexpected failure; nothing was changed',
  }),
  badRequest: (message: string): Error => new ApiFailure('REVIEW_BAD_REQUEST', message),
}

export const TargetSchema = z.strictObject({ name: z.string().min(1).max(256), kind: z.enum(['text', 'xml']) })
export const DEFAULT_TARGET: Target = { name: 'text', kind: 'text' }

export function targetOf(url: URL): Target {
  const name = url.searchParams.get('target')
  if (name === null) return DEFAULT_TARGET
  const r = TargetSchema.safeParse({ name, kind: url.searchParams.get('kind') ?? 'text' })
  if (!r.success) throw new ApiFailure('REVIEW_BAD_REQUEST', 'target names a root and kind is text or xml')
  return r.data
}

/**
 * Runs `change` on a copy of the replica under a fresh id of this account's (or `writer`, one of
 * its own ids already in the document) and applies what it wrote.
 */
export function changed<T>(d: ReviewedDoc, change: (work: Y.Doc) => T, writer?: number): T {
  const work = new Y.Doc({ gc: false })
  Y.applyUpdate(work, Y.encodeStateAsUpdate(d.doc))
  // Set after the copy: Yjs gives a document a new id when an update it applies holds its own.
  work.clientID = writer ?? d.writerId()
  const before = Y.encodeStateVector(work)
  const out = change(work)
  const wrote = Y.getState(work.store, work.clientID)
  // The replica takes only what is new (structs waiting there are cut): all of the writer's must be.
  if (!d.edit(Y.encodeStateAsUpdate(work, before)) || Y.getState(d.doc.store, work.clientID) < wrote)
    throw new ApiFailure('REVIEW_NOT_APPLIED', 'the document did not take the change')
  return out
}

export function refuseViewer(d: ReviewedDoc, what: string): void {
  if (d.role() === 'viewer') throw new ApiFailure('REVIEW_FORBIDDEN', `you can view this document, not ${what}`)
}

/** Only an editor accepts or rejects: a commenter may suggest, not decide. */
export function refuseNonEditor(d: ReviewedDoc): void {
  refuseViewer(d, 'decide on suggestions')
  if (d.role() === 'commenter')
    throw new ApiFailure(
      'REVIEW_COMMENTER_CANNOT_DECIDE',
      'you can comment on this document and suggest changes; only its editors accept or reject them',
    )
}

/**
 * An editor's decision on a suggestion, written under this account: the HTTP accept and reject,
 * and the approval from the phone, both decide through it.
 * @throws ApiFailure (not an editor, not applied) | ReviewError (REVIEW_NOT_FOUND, SUGGESTION_DECIDED, SUGGESTION_QUOTE_CHANGED)
 */
export function decideSuggestion(d: ReviewedDoc, id: string, verb: 'accept' | 'reject', at: number) {
  refuseNonEditor(d)
  return changed(d, (work) => {
    if (verb === 'reject') return decideWithout(work, id, 'rejected', at)
    const decision = acceptSuggestion(work, id, at)
    // Kept before it is applied: a concurrent decision met later is settled from it.
    if (decision.applied !== undefined && decision.applied.len > 0) d.accepted?.(id, decision.applied)
    return decision
  })
}

/** A read-only copy, so listing never creates a root type in the replica itself. */
export function copy(doc: Y.Doc): Y.Doc {
  const work = new Y.Doc({ gc: false })
  Y.applyUpdate(work, Y.encodeStateAsUpdate(doc))
  return work
}

/** "Claude, for Alice": the agent's name, then the person whose account wrote the entry. */
export const byline = (agent: string | undefined, person: string | undefined): string | undefined =>
  agent === undefined ? person : `${agent}, for ${person ?? 'someone unknown'}`

/** The told-apart names of the writers, asked once each. */
export async function peopleOf(
  writers: Iterable<number>,
  personOf: ((clientId: number) => Promise<string | undefined>) | undefined,
): Promise<Map<number, string | undefined>> {
  const people = new Map<number, string | undefined>()
  for (const w of writers) if (!people.has(w)) people.set(w, await personOf?.(w))
  return people
}
