// The sidecar review client against a stand-in of the sidecar's API: a title found among the
// documents the token reaches, ambiguous and missing titles told apart, a stale change and a
// refusal reported per change, and the token only ever in the Authorization header.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { asChatError } from '../errors.ts'
import { createSidecarReview, httpBaseOf } from './sidecar-review.ts'

const TOKEN = 'tok-0123456789abcdef'
const DOCS = [
  { docId: 'a', title: 'Trip plan', state: 'active' },
  { docId: 'b', title: 'Budget', state: 'active' },
  { docId: 'c', title: 'Budget', state: 'active' },
  { docId: 'd', title: 'Secret', state: 'active' },
  { docId: 'e', title: 'Old', state: 'removed' },
]
/** Documents the token names. */
const SCOPE = new Set(['a', 'b', 'c', 'e'])

let server: Server | undefined
const seen: Array<{ path: string; auth: string | undefined; body: string }> = []
afterEach(() => {
  server?.close()
  server = undefined
  seen.length = 0
})

function answer(req: IncomingMessage, body: string): [number, unknown] {
  const path = req.url ?? ''
  if (path === '/v1/docs') return [200, { you: {}, documents: DOCS, membersFrom: 'store' }]
  if (req.headers.authorization !== `Bearer ${TOKEN}`)
    return [401, { error: { code: 'REVIEW_AGENT_TOKEN_UNKNOWN', message: 'unknown' } }]
  const [, , , docId = '', part] = path.split('/')
  if (!SCOPE.has(docId)) return [403, { error: { code: 'REVIEW_AGENT_OUT_OF_SCOPE', message: 'no' } }]
  if (part === 'text') return [200, { text: `text of ${docId}`, markdown: '', base: `base-${docId}` }]
  const find = (JSON.parse(body) as { find: string }).find
  if (find === 'gone') return [409, { error: { code: 'SUGGESTION_STALE', message: 'stale' } }]
  if (find === 'viewer') return [403, { error: { code: 'REVIEW_FORBIDDEN', message: 'viewer' } }]
  return [201, { id: 'sug1' }]
}

async function sidecar(): Promise<URL> {
  const s = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization, body })
      const [status, json] = answer(req, body)
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json))
    })
  })
  server = s
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  return new URL(`ws://127.0.0.1:${(s.address() as AddressInfo).port}`)
}

const signal = new AbortController().signal
async function refusal(p: Promise<unknown>): Promise<{ code: string | undefined; message: string }> {
  try {
    await p
  } catch (err) {
    return { code: asChatError(err)?.code, message: (err as Error).message }
  }
  throw new Error('expected a refusal')
}

describe('the sidecar review client', () => {
  it('reaches the API on the WebSocket’s host and port', () => {
    expect(httpBaseOf(new URL('ws://127.0.0.1:7600'))).toBe('http://127.0.0.1:7600')
    expect(httpBaseOf(new URL('wss://[::1]:7601'))).toBe('https://[::1]:7601')
  })

  it('opens the one document of that title (any case) at its base, the token in the header only', async () => {
    const review = createSidecarReview(await sidecar(), TOKEN)
    expect(await review.open('trip PLAN', signal)).toEqual({
      docId: 'a',
      title: 'Trip plan',
      text: 'text of a',
      base: 'base-a',
    })
    expect(seen.find((s) => s.path === '/v1/docs')?.auth).toBeUndefined()
    expect(seen.every((s) => !s.path.includes(TOKEN) && !s.body.includes(TOKEN))).toBe(true)
  })

  it('tells a missing, an ambiguous, an unreachable and a removed title apart, naming no token', async () => {
    const review = createSidecarReview(await sidecar(), TOKEN)
    const cases = await Promise.all(['Holiday', 'Budget', 'Secret', 'Old'].map((t) => refusal(review.open(t, signal))))
    expect(cases.map((c) => c.code)).toEqual(Array(4).fill('CHAT_DOC_UNAVAILABLE'))
    expect(cases[0]?.message).toBe('no document is titled “Holiday”')
    expect(cases[1]?.message).toMatch(/^2 documents are titled “Budget”/)
    expect(cases[2]?.message).toMatch(/token does not reach “Secret”/)
    expect(cases[3]?.message).toBe('no document is titled “Old”')
    expect(cases.every((c) => !c.message.includes(TOKEN))).toBe(true)
  })

  it('says so when the sidecar does not know the token', async () => {
    const review = createSidecarReview(await sidecar(), 'not-the-token-123')
    const r = await refusal(review.open('Trip plan', signal))
    expect(r).toMatchObject({ code: 'CHAT_DOC_UNAVAILABLE' })
    expect(r.message).toMatch(/does not know this chat’s agent token/)
    expect(r.message).not.toContain('not-the-token-123')
  })

  it('suggests at the base read, and reports stale and refused changes per change', async () => {
    const review = createSidecarReview(await sidecar(), TOKEN)
    const doc = await review.open('Trip plan', signal)
    const outcomes = []
    for (const find of ['long hike', 'gone', 'viewer'])
      outcomes.push(await review.suggest(doc, { find, replace: 'x', note: find === 'long hike' ? 'why' : '' }, signal))
    expect(outcomes).toEqual([
      { kind: 'made', id: 'sug1' },
      { kind: 'stale' },
      { kind: 'refused', reason: 'REVIEW_FORBIDDEN' },
    ])
    const posted = seen.filter((s) => s.path === '/v1/docs/a/suggestions').map((s) => JSON.parse(s.body) as unknown)
    expect(posted[0]).toEqual({ base: 'base-a', find: 'long hike', replace: 'x', note: 'why' })
    // An empty note is left out rather than sent empty.
    expect(posted[1]).toEqual({ base: 'base-a', find: 'gone', replace: 'x' })
  })

  it('says the sidecar did not answer when nothing listens there', async () => {
    const url = await sidecar()
    await new Promise<void>((r) => server?.close(() => r()))
    server = undefined
    const r = await refusal(createSidecarReview(url, TOKEN).open('Trip plan', signal))
    expect(r).toMatchObject({ code: 'CHAT_DOC_UNAVAILABLE' })
    expect(r.message).toMatch(/did not answer/)
  })
})
