/**
 * The local documents API (the home page and `e2e-col-sidecar docs` use it):
 *
 *   GET    /v1/docs                          → {you, documents, membersFrom}
 *   POST   /v1/docs {title, members}         → 201 {docId, groupId}
 *   POST   /v1/docs/<docId>/members {add, remove} → the document
 *   PATCH  /v1/docs/<docId>/members/<number> {role} → the document
 *   PATCH  /v1/docs/<docId> {title}          → the document
 *   DELETE /v1/docs/<docId>                  → 204 (left)
 *   POST   /v1/docs/<docId>/delete-for-everyone {} → {docId, way} (editors only)
 *   GET    /v1/invites                       → {invites}
 *   POST   /v1/invites/<id>/accept           → {docId, groupId}
 *   POST   /v1/invites/<id>/decline          → 204
 *   GET    /v1/contacts                      → {contacts}
 *
 * A person in `members` or `add` is a number (an editor) or `{number, role}` with `role` `"editor"`
 * or `"viewer"` (roles/roles.ts).
 *
 * Errors are `{error: {code, message}}` with the status of the code (http/library-error.ts). Bodies
 * are JSON only (`Content-Type: application/json`, at most `MAX_BODY_BYTES`, http/body.ts).
 * @see docs/documents.md
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { codeOf, messageOf } from '../error-code.ts'
import { ROLES } from '../roles/roles.ts'
import { checkHost, checkOrigin } from '../http/guard.ts'
import { readBody } from '../http/body.ts'
import { isPhoneNumber } from '../group/group-tag.ts'
import type { DocumentLibrary } from './library.ts'
import { isLibraryError, LibraryError } from '../http/library-error.ts'

/** Largest request body read. */

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
const DOC = new RegExp(`^/v1/docs/(${UUID})$`)
const MEMBERS = new RegExp(`^/v1/docs/(${UUID})/members$`)
const DELETE_ALL = new RegExp(`^/v1/docs/(${UUID})/delete-for-everyone$`)
const AUTHORS = new RegExp(`^/v1/docs/(${UUID})/authors$`)
const NOT_SHARED = new RegExp(`^/v1/docs/(${UUID})/not-shared$`)
const MEMBER = new RegExp(`^/v1/docs/(${UUID})/members/([^/]{1,64})$`)
const INVITE = new RegExp(`^/v1/invites/(${UUID})/(accept|decline)$`)

// Strings are bounded here so that a huge value never reaches the checks that explain it.
const Phone = z.string().max(64)
const Role = z.enum(ROLES)
// A person shared with: a bare number edits (as before roles), or a number with its role.
const Person = z.union([Phone, z.strictObject({ number: Phone, role: Role })])
const Create = z.strictObject({ title: z.string().max(1024), members: z.array(Person).max(1000).default([]) })
const Members = z.strictObject({
  add: z.array(Person).max(1000).default([]),
  remove: z.array(Phone).max(1000).default([]),
})
const SetRole = z.strictObject({ role: Role })

/** People as numbers, the numbers of those who may not edit, and those of them who comment. */
function sharing(people: readonly z.infer<typeof Person>[]): {
  numbers: string[]
  viewers: string[]
  commenters: string[]
} {
  const numbers = people.map((p) => (typeof p === 'string' ? p : p.number))
  const viewers = people.flatMap((p) => (typeof p !== 'string' && p.role !== 'editor' ? [p.number] : []))
  const commenters = people.flatMap((p) => (typeof p !== 'string' && p.role === 'commenter' ? [p.number] : []))
  return { numbers, viewers, commenters }
}

/** The number in a member path (`+` may come percent-encoded). @throws LibraryError DOCS_BAD_NUMBER */
function pathNumber(raw: string): string {
  let number: string
  try {
    number = decodeURIComponent(raw)
  } catch {
    number = raw
  }
  if (!isPhoneNumber(number))
    throw new LibraryError('DOCS_BAD_NUMBER', 'the member in the path is not a phone number in international form')
  return number
}
const Rename = z.strictObject({ title: z.string().max(1024) })
const Empty = z.strictObject({})

export interface DocsApiOptions {
  /** Undefined when the daemon backend cannot administer groups: every call is DOCS_UNSUPPORTED. */
  library: DocumentLibrary | undefined
  allowedOrigins: readonly string[]
  /** The listener's host and port (for the Host check). */
  bind: () => { host: string; port: number }
  ready: () => boolean
  /** A notice for the home page (the device is no longer linked), listed with the documents. */
  notice?: () => string | undefined
  /** Who wrote under each client id of a served document (authorship/authors-view.ts). @throws LibraryError */
  authors?: (docId: string) => Promise<unknown>
  /** A served document's edits not shared because this account was made a viewer or a commenter first (decisions/0032). @throws LibraryError */
  notShared?: (docId: string) => Promise<unknown>
}

export interface DocsApi {
  /** True for the paths this API answers. */
  handles(path: string): boolean
  handle(req: IncomingMessage, res: ServerResponse): void
}

function send(res: ServerResponse, status: number, body: unknown, cors: string | undefined): void {
  const headers: Record<string, string> = {
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    vary: 'Origin',
  }
  if (cors !== undefined) headers['access-control-allow-origin'] = cors
  if (body === undefined) {
    res.writeHead(status, headers).end()
    return
  }
  const text = JSON.stringify(body)
  res
    .writeHead(status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
    })
    .end(text)
}

function parse<T>(schema: z.ZodType<T>, text: string): T {
  let json: unknown
  try {
    json = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    throw new LibraryError('API_BAD_JSON', 'the request body is not JSON')
  }
  const r = schema.safeParse(json)
  if (!r.success)
    throw new LibraryError(
      'DOCS_BAD_REQUEST',
      `the request body does not fit: ${z.prettifyError(r.error).split('\n').slice(0, 4).join('; ')}`,
    )
  return r.data
}

/** `POST /v1/docs/<docId>/delete-for-everyone {}` → `{docId, way}` (editors only); undefined for another path. */
async function deleteRoute(
  library: DocumentLibrary,
  req: IncomingMessage,
  path: string,
  method: string,
): Promise<{ status: number; body: unknown } | undefined> {
  const docId = DELETE_ALL.exec(path)?.[1]
  if (docId === undefined) return undefined
  if (method !== 'POST') throw new LibraryError('API_METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`)
  parse(Empty, await readBody(req))
  return { status: 200, body: await library.deleteForEveryone(docId) }
}

type Answer = { status: number; body?: unknown }

/** Throws API_METHOD_NOT_ALLOWED unless `method` is one of `allowed`. */
function only(method: string, path: string, ...allowed: string[]): void {
  if (!allowed.includes(method)) throw new LibraryError('API_METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`)
}

const bodyOf = async <T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> => parse(schema, await readBody(req))

/** `/v1/docs`, `/v1/invites`, `/v1/contacts`; undefined for another path. */
async function listRoute(
  o: DocsApiOptions,
  library: DocumentLibrary,
  req: IncomingMessage,
  path: string,
  method: string,
): Promise<Answer | undefined> {
  if (path === '/v1/docs') {
    only(method, path, 'GET', 'POST')
    if (method === 'GET') {
      const notice = o.notice?.()
      return {
        status: 200,
        body: { you: library.you, ...(await library.list()), ...(notice === undefined ? {} : { notice }) },
      }
    }
    const input = await bodyOf(req, Create)
    const { numbers, viewers, commenters } = sharing(input.members)
    return { status: 201, body: await library.create({ title: input.title, members: numbers, viewers, commenters }) }
  }
  if (path === '/v1/invites') {
    only(method, path, 'GET')
    return { status: 200, body: { invites: await library.invites() } }
  }
  if (path === '/v1/contacts') {
    only(method, path, 'GET')
    return { status: 200, body: { contacts: await library.contacts() } }
  }
  return undefined
}

/** One document's or invitation's paths; undefined for another path. */
async function itemRoute(
  library: DocumentLibrary,
  req: IncomingMessage,
  path: string,
  method: string,
): Promise<Answer | undefined> {
  const members = MEMBERS.exec(path)?.[1]
  if (members !== undefined) {
    only(method, path, 'POST')
    const change = await bodyOf(req, Members)
    const { numbers, viewers, commenters } = sharing(change.add)
    return {
      status: 200,
      body: await library.changeMembers(members, { add: numbers, remove: change.remove, viewers, commenters }),
    }
  }
  const deleted = await deleteRoute(library, req, path, method)
  if (deleted !== undefined) return deleted
  const member = MEMBER.exec(path)
  if (member?.[1] !== undefined && member[2] !== undefined) {
    only(method, path, 'PATCH')
    const number = pathNumber(member[2])
    const { role } = await bodyOf(req, SetRole)
    return { status: 200, body: await library.setRole(member[1], number, role) }
  }
  const doc = DOC.exec(path)?.[1]
  if (doc !== undefined) {
    only(method, path, 'PATCH', 'DELETE')
    if (method === 'PATCH') return { status: 200, body: await library.rename(doc, (await bodyOf(req, Rename)).title) }
    await bodyOf(req, Empty)
    await library.leave(doc)
    return { status: 204 }
  }
  const invite = INVITE.exec(path)
  if (invite?.[1] !== undefined) {
    only(method, path, 'POST')
    await bodyOf(req, Empty)
    if (invite[2] === 'accept') return { status: 200, body: await library.accept(invite[1]) }
    await library.decline(invite[1])
    return { status: 204 }
  }
  return undefined
}

/** A CORS preflight: only from an allowed page. */
function preflight(res: ServerResponse, cors: string | undefined): void {
  if (cors === undefined) throw new LibraryError('API_ORIGIN_NOT_ALLOWED', 'a preflight needs an allowed Origin')
  res
    .writeHead(204, {
      'access-control-allow-origin': cors,
      'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '600',
      vary: 'Origin',
    })
    .end()
}

/** `GET /v1/docs/<docId>/not-shared` (decisions/0032), or undefined for another path. */
async function notSharedRoute(
  o: DocsApiOptions,
  path: string,
  method: string,
): Promise<{ status: number; body: unknown } | undefined> {
  const docId = NOT_SHARED.exec(path)?.[1]
  if (docId === undefined || o.notShared === undefined) return undefined
  if (method !== 'GET') throw new LibraryError('API_METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`)
  return { status: 200, body: await o.notShared(docId) }
}

export function createDocsApi(o: DocsApiOptions): DocsApi {
  async function route(req: IncomingMessage, path: string, method: string): Promise<Answer> {
    const authors = AUTHORS.exec(path)?.[1]
    if (authors !== undefined && o.authors !== undefined) {
      if (method !== 'GET') throw new LibraryError('API_METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`)
      return { status: 200, body: await o.authors(authors) }
    }
    const notShared = await notSharedRoute(o, path, method)
    if (notShared !== undefined) return notShared
    const library = o.library
    if (library === undefined)
      throw new LibraryError('DOCS_UNSUPPORTED', "this sidecar's daemon backend cannot administer groups")
    const answer = (await listRoute(o, library, req, path, method)) ?? (await itemRoute(library, req, path, method))
    if (answer !== undefined) return answer
    throw new LibraryError('API_NOT_FOUND', `no such path: ${path.slice(0, 80)}`)
  }

  return {
    handles: (path) =>
      path === '/v1/docs' ||
      path.startsWith('/v1/docs/') ||
      path === '/v1/invites' ||
      path.startsWith('/v1/invites/') ||
      path === '/v1/contacts',
    handle(req, res) {
      const path = new URL(req.url ?? '/', 'http://sidecar').pathname
      const method = req.method ?? 'GET'
      let cors: string | undefined
      const fail = (error: unknown): void => {
        const e = isLibraryError(error)
          ? error
          : codeOf(error) === 'SIDECAR_STORE_FAILED'
            ? new LibraryError('DOCS_STOPPING', 'the replica store failed; the sidecar is stopping')
            : new LibraryError('DOCS_DAEMON_FAILED', `unexpected failure (${messageOf(error)})`)
        // An unread body is dropped with the connection (once the answer is out) rather than drained.
        if (!req.complete) {
          res.shouldKeepAlive = false
          res.once('finish', () => req.destroy())
        }
        // Signal failed because this computer is no longer linked: say that, not "try again".
        const notice = e.code === 'DOCS_DAEMON_FAILED' ? o.notice?.() : undefined
        if (!res.headersSent)
          send(
            res,
            e.status,
            {
              error:
                notice === undefined
                  ? { code: e.code, message: e.message }
                  : { code: 'DOCS_UNLINKED', message: notice },
            },
            e.code === 'API_ORIGIN_NOT_ALLOWED' || e.code === 'API_HOST_NOT_ALLOWED' ? undefined : cors,
          )
      }
      try {
        checkHost(req.headers.host, o.bind())
        cors = checkOrigin(req, o.allowedOrigins)
        if (method === 'OPTIONS') return preflight(res, cors)
        if (method !== 'GET' && method !== 'HEAD') {
          const type = req.headers['content-type'] ?? ''
          if (!/^application\/json\s*(;|$)/i.test(type))
            throw new LibraryError(
              'API_UNSUPPORTED_MEDIA_TYPE',
              'request bodies must be JSON (Content-Type: application/json)',
            )
        }
        if (!o.ready()) throw new LibraryError('DOCS_STOPPING', 'the sidecar is not serving')
      } catch (error) {
        return fail(error)
      }
      route(req, path, method).then((r) => send(res, r.status, r.body, cors), fail)
    },
  }
}
