/**
 * The history part of the local documents API, behind the same guards as the rest of `/v1`
 * (loopback Host, allowed Origin, JSON bodies):
 *
 *   GET  /v1/docs/<docId>/versions[?before=<ms>&limit=<n>] → {versions: [{id, at, reason, authors: [{number, name, you}], undid?, chars?}]}, newest first
 *        (`undid`: on a revert, whose changes it undid, as an author; `restoredFrom`: on a restore, the time of the version it restored)
 *   GET  /v1/docs/<docId>/versions/<id>                   → the version as a Yjs update (octet-stream)
 *   POST /v1/docs/<docId>/versions/<id>/restore {}        → {version}: the document made equal to it
 *   POST /v1/docs/<docId>/revert {author, since}          → {version}: that member's changes since then undone
 *   POST /v1/docs/<docId>/revert {author, since, preview: true} → the document as that undo would leave it (a Yjs
 *        update of its whole state, octet-stream); nothing changed or recorded
 *
 * Errors are `{error: {code, message}}`: an unknown document or version 404, a document this
 * person left 409, bad input 400, a restore or revert by a viewer 403 `HISTORY_NOT_EDITOR` (refused
 * before anything is recorded).
 * @see docs/documents.md "History"
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { codeOf, messageOf } from '../error-code.ts'
import { isApiError, isGuardRefusal } from '../http/api-error.ts'
import { readBody } from '../http/body.ts'
import { checkHost, checkOrigin } from '../http/guard.ts'
import { readRestoreReason } from './doc-history.ts'
import type { Histories, Edit } from './histories.ts'
import { HistoryError, isHistoryError } from './history-error.ts'
import type { VersionRow } from './history-table.ts'

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
const ROUTE = new RegExp(`^/v1/docs/(${UUID})/(?:versions(?:/(\\d{1,15})(/restore)?)?|(revert))$`)
/** Most versions one listing answers. */
export const MAX_LIMIT = 500

const Revert = z.strictObject({
  author: z.string().min(1).max(64),
  since: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  preview: z.literal(true).optional(),
})
const Restore = z.strictObject({})
const Listing = z.strictObject({
  before: z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(50),
})

export interface HistoryApiOptions {
  readonly histories: Histories
  /** The served document's own edit verb, undefined when it is not served. */
  editOf(docId: string): Edit | undefined
  /** This account's role in a served document: a viewer may read its history, not change the document from it. */
  roleOf(docId: string): 'editor' | 'commenter' | 'viewer' | undefined
  /** True for a document this person left (kept, not served). */
  left(docId: string): boolean
  /** Members' shown names by number (made safe to show where they enter: people/shown-names.ts); may be empty. */
  names(): Promise<ReadonlyMap<string, string | undefined>>
  /** This account's number (its authors are marked `you`). */
  you(): string
  readonly allowedOrigins: readonly string[]
  bind(): { host: string; port: number }
  ready(): boolean
}

export interface HistoryApi {
  handles(path: string): boolean
  handle(req: IncomingMessage, res: ServerResponse): void
}

type Answer = { status: number; json?: unknown; bytes?: Uint8Array }

async function bodyOf<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    throw new HistoryError('HISTORY_BAD_REQUEST', 'request bodies must be JSON (Content-Type: application/json)')
  const text = await readBody(req)
  let json: unknown
  try {
    json = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    throw new HistoryError('HISTORY_BAD_REQUEST', 'the request body is not JSON')
  }
  return valid(schema, json)
}

function valid<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value)
  if (!r.success)
    throw new HistoryError(
      'HISTORY_BAD_REQUEST',
      `bad input: ${z.prettifyError(r.error).split('\n').slice(0, 3).join('; ')}`,
    )
  return r.data
}

function answer(res: ServerResponse, a: Answer, cors: string | undefined): void {
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

/** The status, code and message an error is answered with; `guard` for a refused Host or Origin. */
function failureOf(error: unknown): {
  status: number
  code: string
  message: string
  guard: boolean
  details?: Readonly<Record<string, number>>
} {
  if (isApiError(error))
    return { status: error.status, code: error.code, message: error.message, guard: isGuardRefusal(error) }
  if (isHistoryError(error))
    return { status: error.status, code: error.code, message: error.message, guard: false, details: error.details }
  const e =
    codeOf(error) === 'SIDECAR_STORE_FAILED'
      ? new HistoryError('HISTORY_NOT_APPLIED', 'the replica store failed; the sidecar is stopping')
      : new HistoryError('HISTORY_NOT_APPLIED', `unexpected failure (${messageOf(error)})`)
  return { status: e.status, code: e.code, message: e.message, guard: false }
}

/** A CORS preflight: only from an allowed page, for GET and POST with a JSON body. */
function preflight(res: ServerResponse, cors: string | undefined): void {
  if (cors === undefined) throw new HistoryError('HISTORY_BAD_REQUEST', 'a preflight needs an allowed Origin')
  const headers = { 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'content-type' }
  res.writeHead(204, {
    ...headers,
    'access-control-allow-origin': cors,
    'access-control-max-age': '600',
    vary: 'Origin',
  })
  res.end()
}

/** A version as the API lists it: its people by number and shown name, this account marked. */
const shown = (v: VersionRow, names: ReadonlyMap<string, string | undefined>, you: string) => {
  const person = (number: string) => ({ number, name: names.get(number) ?? null, you: number === you })
  // A revert is stored as `revert:<whose changes>` (histories.ts); listed as `revert` with `undid`.
  const undid = v.reason.startsWith('revert:') ? v.reason.slice('revert:'.length) : undefined
  // A restore is stored as `restore:<version>:<its time>:<client id>` (doc-history.ts); listed as `restore` with `restoredFrom`.
  const restored = readRestoreReason(v.reason)
  return {
    id: String(v.id),
    at: v.at,
    reason: undid !== undefined ? 'revert' : restored !== undefined ? 'restore' : v.reason,
    authors: v.authors.map(person),
    ...(undid === undefined || undid === '' ? {} : { undid: person(undid) }),
    ...(restored === undefined ? {} : { restoredFrom: restored.versionAt }),
    ...(v.chars === undefined ? {} : { chars: v.chars }),
  }
}

export function createHistoryApi(o: HistoryApiOptions): HistoryApi {
  function servedEdit(docId: string): Edit {
    const edit = o.editOf(docId)
    if (edit !== undefined && o.histories.get(docId) !== undefined) return edit
    if (o.left(docId)) throw new HistoryError('HISTORY_DOCUMENT_LEFT', 'you left this document')
    throw new HistoryError('HISTORY_UNKNOWN_DOCUMENT', 'this sidecar does not serve that document')
  }

  async function route(req: IncomingMessage, url: URL, method: string): Promise<Answer> {
    const m = ROUTE.exec(url.pathname)
    const [, docId = '', versionPart, restore, revert] = m ?? []
    const expect = revert !== undefined || restore !== undefined ? 'POST' : 'GET'
    if (method !== expect)
      throw new HistoryError('HISTORY_METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${expect}`)
    const edit = servedEdit(docId)
    const history = o.histories.get(docId)
    if (history === undefined) throw new HistoryError('HISTORY_UNKNOWN_DOCUMENT', 'not served')
    if ((revert !== undefined || restore !== undefined) && (o.roleOf(docId) ?? 'editor') !== 'editor')
      throw new HistoryError(
        'HISTORY_NOT_EDITOR',
        'you can view this document, not change it: only its editors restore versions or undo changes',
      )
    if (revert !== undefined) {
      const { author, since, preview } = await bodyOf(req, Revert)
      if (preview === true) return { status: 200, bytes: o.histories.previewRevert(docId, author, since) }
      const row = o.histories.revert(docId, author, since, edit)
      return { status: 200, json: { version: row === undefined ? null : String(row.id) } }
    }
    if (versionPart === undefined) {
      const q = valid(Listing, Object.fromEntries(url.searchParams))
      const [names, you] = [await o.names(), o.you()]
      return { status: 200, json: { versions: history.list(q.before, q.limit).map((v) => shown(v, names, you)) } }
    }
    const id = Number(versionPart)
    if (restore !== undefined) {
      await bodyOf(req, Restore)
      return { status: 200, json: { version: String(o.histories.restore(docId, id, edit).id) } }
    }
    const state = history.state(id)
    if (state === undefined) throw new HistoryError('HISTORY_UNKNOWN_VERSION', 'no such version of this document')
    return { status: 200, bytes: state }
  }

  return {
    handles: (path) => ROUTE.test(path),
    handle(req, res) {
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
        const e = failureOf(error)
        // A refused Host or Origin gets no CORS header.
        answer(
          res,
          { status: e.status, json: { error: { ...e.details, code: e.code, message: e.message } } },
          e.guard ? undefined : cors,
        )
      }
      try {
        checkHost(req.headers.host, o.bind())
        cors = checkOrigin(req, o.allowedOrigins)
        if (method === 'OPTIONS') return preflight(res, cors)
        if (!o.ready()) throw new HistoryError('HISTORY_NOT_APPLIED', 'the sidecar is not serving')
      } catch (error) {
        return fail(error)
      }
      route(req, url, method).then((a) => answer(res, a, cors), fail)
    },
  }
}
