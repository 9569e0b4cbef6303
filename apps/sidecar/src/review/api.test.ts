import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { clientIdFor } from '@e2e-col/protocol'
import { listSuggestions } from '@e2e-col/review'
import * as Y from 'yjs'
import { afterEach, describe, expect, it } from 'vitest'
import { createReviewApi, type ReviewedDoc } from './api.ts'

const DOC = '00000000-0000-4000-8000-000000000001'
const ALICE = clientIdFor(1100, 7)
const BOB = clientIdFor(2200, 9)

let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))))

/** A served document over real HTTP: the replica, what was edited into it, and the role. */
async function serve(text: string, role: 'editor' | 'viewer' = 'editor', allowedOrigins: string[] = []) {
  const doc = new Y.Doc()
  doc.clientID = BOB
  doc.getText('text').insert(0, text)
  const edits: Uint8Array[] = []
  const state = { role }
  const reviewed: ReviewedDoc = {
    doc,
    edit: (u) => {
      edits.push(u)
      Y.applyUpdate(doc, u)
      return true
    },
    role: () => state.role,
    writerId: () => ALICE,
  }
  let port = 0
  let n = 0
  const api = createReviewApi({
    reviewed: (id) => (id === DOC ? reviewed : undefined),
    now: () => 1000,
    random: () => (n += 7919),
    allowedOrigins,
    bind: () => ({ host: '127.0.0.1', port }),
    ready: () => true,
  })
  server = createServer((req, res) => api.handle(req, res))
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`http://127.0.0.1:${port}/v1/docs/${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    })
    return { status: r.status, json: (await r.json()) as Record<string, unknown> }
  }
  const preflight = (origin: string) =>
    fetch(`http://127.0.0.1:${port}/v1/docs/${DOC}/suggestions/abcdefgh/accept`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    })
  return { doc, edits, state, call, preflight }
}

describe('the review API over HTTP', () => {
  it('reads the text with a base, takes a suggestion (201) written under this account, lists it, accepts it', async () => {
    const s = await serve('Day 2: long hike and a picnic.')
    const read = await s.call('GET', `${DOC}/text`)
    expect(read).toMatchObject({ status: 200, json: { text: 'Day 2: long hike and a picnic.' } })
    const made = await s.call('POST', `${DOC}/suggestions`, {
      base: read.json['base'],
      find: 'long hike and a picnic',
      replace: 'picnic',
      note: 'shorter',
      agent: 'Claude',
    })
    expect(made.status).toBe(201)
    const [entry] = listSuggestions(s.doc)
    expect(entry).toMatchObject({ id: made.json['id'], writer: ALICE, status: 'open' })
    const listed = await s.call('GET', `${DOC}/suggestions`)
    expect(listed.json['suggestions']).toMatchObject([{ id: made.json['id'], agent: 'Claude', stale: false }])
    const accepted = await s.call('POST', `${DOC}/suggestions/${String(made.json['id'])}/accept`, {})
    expect(accepted).toMatchObject({ status: 200, json: { status: 'accepted', at: 1000 } })
    expect(s.doc.getText('text').toString()).toBe('Day 2: picnic.')
    expect(s.edits).toHaveLength(2)
  })

  it('a stale find is 409 SUGGESTION_STALE with its reason, and nothing is edited', async () => {
    const s = await serve('one two two')
    const { json } = await s.call('GET', `${DOC}/text`)
    const r = await s.call('POST', `${DOC}/suggestions`, { base: json['base'], find: 'two', replace: '2' })
    expect(r).toEqual({
      status: 409,
      json: { error: { code: 'SUGGESTION_STALE', message: 'find occurs more than once', detail: 'ambiguous' } },
    })
    expect(s.edits).toEqual([])
  })

  it('a viewer may read and list but not suggest or decide (403); unknown documents 404; bad bodies 400', async () => {
    const s = await serve('one two', 'viewer')
    const { json } = await s.call('GET', `${DOC}/text`)
    expect((await s.call('POST', `${DOC}/suggestions`, { base: json['base'], find: 'two', replace: '2' })).status).toBe(
      403,
    )
    expect((await s.call('POST', `${DOC}/suggestions/abcdefgh/accept`, {})).status).toBe(403)
    expect((await s.call('GET', `${DOC}/suggestions`)).status).toBe(200)
    s.state.role = 'editor'
    expect((await s.call('POST', `${DOC}/suggestions`, { find: 'two' })).json).toMatchObject({
      error: { code: 'REVIEW_BAD_REQUEST' },
    })
    expect((await s.call('POST', `${DOC}/suggestions/abcdefgh/accept`, {})).status).toBe(404)
    expect((await s.call('GET', '00000000-0000-4000-8000-000000000002/text')).status).toBe(404)
    expect((await s.call('DELETE', `${DOC}/text`)).status).toBe(405)
    expect(s.edits).toEqual([])
  })

  it("answers an allowed page's preflight (the editor pages POST decisions as JSON) and refuses another origin's", async () => {
    const page = 'http://127.0.0.1:5173'
    const s = await serve('one two', 'editor', [page])
    const ok = await s.preflight(page)
    expect(ok.status).toBe(204)
    expect(ok.headers.get('access-control-allow-origin')).toBe(page)
    expect(ok.headers.get('access-control-allow-methods')).toBe('GET, POST')
    expect(ok.headers.get('access-control-allow-headers')).toBe('content-type')
    const other = await s.preflight('http://evil.example')
    expect(other.status).toBe(403)
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    expect(s.edits).toEqual([])
  })
})
