import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { clientIdFor } from '@e2e-col/protocol'
import { REVIEW_LIMITS, listComments } from '@e2e-col/review'
import * as Y from 'yjs'
import { afterEach, describe, expect, it } from 'vitest'
import { createReviewApi, type ReviewedDoc } from './api.ts'
import type { Commented } from './comment-routes.ts'

const DOC = '00000000-0000-4000-8000-000000000001'
const BOB = clientIdFor(2200, 9)
const TOKEN = 'e2ecol_agent_test'

let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))))

/** A served document over real HTTP, with Bob a member whom a comment can mention. */
async function serve(text: string, role: 'editor' | 'commenter' | 'viewer' = 'editor') {
  const doc = new Y.Doc()
  doc.clientID = BOB
  doc.getText('text').insert(0, text)
  const edits: Uint8Array[] = []
  const state = { role }
  const mentions: Commented[] = []
  const mine = new Set<number>()
  const reviewed: ReviewedDoc = {
    doc,
    edit: (u) => {
      edits.push(u)
      Y.applyUpdate(doc, u)
      return true
    },
    role: () => state.role,
    // A fresh id under this account's tag each change, as histories.writerId() gives.
    writerId: () => {
      const id = clientIdFor(1100, mine.size + 1)
      mine.add(id)
      return id
    },
  }
  let port = 0
  let n = 0
  const api = createReviewApi({
    reviewed: (id) => (id === DOC ? reviewed : undefined),
    tokens: {
      mint: () => TOKEN,
      find: (t) => (t === TOKEN ? { name: 'Claude', docIds: [DOC] } : undefined),
    },
    personOf: async (_doc, clientId) => (mine.has(clientId) ? 'you' : 'Bob'),
    members: async () => [{ number: '+15550002', name: 'Bob' }],
    mentioned: async (c) => {
      mentions.push(c)
      return c.numbers.length
    },
    now: () => 1000,
    random: () => (n += 7919),
    allowedOrigins: [],
    bind: () => ({ host: '127.0.0.1', port }),
    ready: () => true,
  })
  server = createServer((req, res) => api.handle(req, res))
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`
    const r = await fetch(`http://127.0.0.1:${port}/v1/docs/${DOC}/${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: r.status, json: (await r.json()) as Record<string, unknown> }
  }
  return { doc, edits, state, call, mentions, mine }
}

type Thread = { id: string; by: string; quote: string; orphaned: boolean; resolved: boolean; replies: unknown[] }
const threads = async (s: Awaited<ReturnType<typeof serve>>): Promise<Thread[]> =>
  (await s.call('GET', 'comments')).json['comments'] as Thread[]

describe('the comment routes over HTTP', () => {
  it('adds a comment on a range, replies, resolves and reopens; each written under this account', async () => {
    const s = await serve('Day 2: long hike and a picnic.')
    const made = await s.call('POST', 'comments', { index: 7, length: 9, quote: 'long hike', body: 'too long?' })
    expect(made).toMatchObject({ status: 201, json: { mentioned: 0 } })
    const id = made.json['id'] as string
    expect((await s.call('POST', `comments/${id}/replies`, { body: 'shorten it' })).status).toBe(201)
    expect(await s.call('POST', `comments/${id}/resolve`, {})).toEqual({ status: 200, json: { resolved: true } })
    expect(await threads(s)).toMatchObject([
      {
        id,
        by: 'you',
        quote: 'long hike',
        orphaned: false,
        resolved: true,
        replies: [{ body: 'shorten it', by: 'you' }],
      },
    ])
    expect(listComments(s.doc).every((c) => s.mine.has(c.writer))).toBe(true)
    await s.call('POST', `comments/${id}/reopen`, {})
    expect((await threads(s))[0]?.resolved).toBe(false)
    expect(s.edits).toHaveLength(4)
  })

  it('a comment whose text is deleted is listed orphaned with its quote', async () => {
    const s = await serve('Day 2: long hike and a picnic.')
    await s.call('POST', 'comments', { index: 7, length: 9, body: 'too long?' })
    s.doc.getText('text').delete(7, 14)
    expect(await threads(s)).toMatchObject([{ quote: 'long hike', orphaned: true, current: '' }])
  })

  it('a viewer lists but may not comment, reply or resolve (403 REVIEW_VIEWER_CANNOT_COMMENT); a commenter may', async () => {
    const s = await serve('one two', 'commenter')
    const made = await s.call('POST', 'comments', { index: 0, length: 3, body: 'hm' })
    expect(made.status).toBe(201)
    s.state.role = 'viewer'
    const id = made.json['id'] as string
    for (const [path, body] of [
      ['comments', { index: 0, length: 3, body: 'again' }],
      [`comments/${id}/replies`, { body: 'r' }],
      [`comments/${id}/resolve`, {}],
    ] as const) {
      const r = await s.call('POST', path, body)
      expect([r.status, (r.json['error'] as { code: string }).code]).toEqual([403, 'REVIEW_VIEWER_CANNOT_COMMENT'])
    }
    expect((await threads(s)).length).toBe(1)
    expect(s.edits).toHaveLength(1)
  })

  it('an agent token comments and replies under its name, never resolves; an unknown token is 401', async () => {
    const s = await serve('one two')
    const made = await s.call('POST', 'comments', { index: 4, length: 3, body: 'why two?' }, TOKEN)
    expect(made.status).toBe(201)
    const id = made.json['id'] as string
    expect((await threads(s))[0]).toMatchObject({ by: 'Claude, for you', agent: 'Claude' })
    expect((await s.call('POST', `comments/${id}/replies`, { body: 'ok' }, TOKEN)).status).toBe(201)
    const resolve = await s.call('POST', `comments/${id}/resolve`, {}, TOKEN)
    expect([resolve.status, (resolve.json['error'] as { code: string }).code]).toEqual([
      403,
      'REVIEW_AGENT_CANNOT_DECIDE',
    ])
    expect((await s.call('GET', 'comments', undefined, 'e2ecol_agent_other')).status).toBe(401)
  })

  it('bad input is typed: a range outside the text, a changed quote, an empty or too long body, an unknown thread', async () => {
    const s = await serve('one two')
    const code = async (path: string, body: unknown) => {
      const r = await s.call('POST', path, body)
      return [r.status, (r.json['error'] as { code: string }).code]
    }
    expect(await code('comments', { index: 5, length: 10, body: 'x' })).toEqual([400, 'REVIEW_BAD_INPUT'])
    expect(await code('comments', { index: 0, length: 3, quote: 'two', body: 'x' })).toEqual([
      409,
      'REVIEW_COMMENT_QUOTE_CHANGED',
    ])
    expect(await code('comments', { index: 0, length: 3, body: '' })).toEqual([400, 'REVIEW_BAD_REQUEST'])
    const long = 'x'.repeat(REVIEW_LIMITS.maxNoteBytes + 1)
    expect(await code('comments', { index: 0, length: 3, body: long })).toEqual([400, 'REVIEW_TOO_LARGE'])
    expect(await code('comments/abcdefgh/replies', { body: 'x' })).toEqual([404, 'REVIEW_NOT_FOUND'])
    expect(await code('comments', { index: -1, length: 3, body: 'x' })).toEqual([400, 'REVIEW_BAD_REQUEST'])
    expect(s.edits).toEqual([])
  })

  it("names the members a comment mentions from the group's members, not the request, and hands them on once", async () => {
    const s = await serve('Day 2: long hike')
    const made = await s.call('POST', 'comments', { index: 7, length: 9, body: '@Bob is this too long? @Mallory' })
    expect(made).toMatchObject({ status: 201, json: { mentioned: 1 } })
    expect(s.mentions).toEqual([
      {
        docId: DOC,
        commentId: made.json['id'],
        numbers: ['+15550002'],
        quote: 'long hike',
        body: '@Bob is this too long? @Mallory',
      },
    ])
    const extra = await s.call('POST', 'comments', { index: 7, length: 9, body: 'x', mentions: ['+15550009'] })
    expect(extra.status).toBe(400)
    expect(s.mentions).toHaveLength(1)
  })
})
