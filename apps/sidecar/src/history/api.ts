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
import { jsonBody, NotServing, serveGuarded, valid, type Answer, type Failure } from '../http/serve.ts'
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

/** How the shared server (http/serve.ts) answers this API's failures. */
const GUARDED = {
  own: (error: unknown): Failure | undefined =>
    isHistoryError(error)
      ? { status: error.status, code: error.code, message: error.message, extra: error.details }
      : undefined,
  fallback(error: unknown): Failure {
    const e =
      error instanceof NotServing
        ? new HistoryError('HISTORY_NOT_APPLIED', error.message)
        : codeOf(error) === 'SIDECAR_STORE_FAILED'
          ? new HistoryError('HISTORY_NOT_APPLIED', 'the replica store failed; the sidecar is stopping')
          : new HistoryError('HISTORY_NOT_APPLIED', `unexpected failure (${messageOf(error)})`)
    return { status: e.status, code: e.code, message: e.message }
  },
  badRequest: (message: string) => new HistoryError('HISTORY_BAD_REQUEST', message),
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
      const { author, since, preview } = await jsonBody(req, Revert, GUARDED)
      if (preview === true) return { status: 200, bytes: o.histories.previewRevert(docId, author, since) }
      const row = o.histories.revert(docId, author, since, edit)
      return { status: 200, json: { version: row === undefined ? null : String(row.id) } }
    }
    if (versionPart === undefined) {
      const q = valid(Listing, Object.fromEntries(url.searchParams), GUARDED)
      const [names, you] = [await o.names(), o.you()]
      return { status: 200, json: { versions: history.list(q.before, q.limit).map((v) => shown(v, names, you)) } }
    }
    const id = Number(versionPart)
    if (restore !== undefined) {
      await jsonBody(req, Restore, GUARDED)
      return { status: 200, json: { version: String(o.histories.restore(docId, id, edit).id) } }
    }
    const state = history.state(id)
    if (state === undefined) throw new HistoryError('HISTORY_UNKNOWN_VERSION', 'no such version of this document')
    return { status: 200, bytes: state }
  }

  const guarded = { ...GUARDED, allowedOrigins: o.allowedOrigins, bind: o.bind, ready: o.ready }
  return {
    handles: (path) => ROUTE.test(path),
    handle: (req, res) => serveGuarded(req, res, guarded, (url, method) => route(req, url, method)),
  }
}
