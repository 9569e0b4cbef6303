/**
 * The local sidecar's review API as a document turn needs it (docs/review.md): find a document by
 * title, read its text at a base, suggest changes at that base with the agent token. The token is
 * sent only in the Authorization header and never appears in an error; the sidecar's answers are
 * bounded and checked with zod before they are used.
 */
import { z } from 'zod'
import { ChatError } from '../errors.ts'
import type { DocChange } from './doc-prompt.ts'

/** A document a turn works on, read at `base`. */
export interface OpenedDoc {
  docId: string
  title: string
  text: string
  base: string
}

/** What became of one change. */
export type SuggestOutcome =
  | { kind: 'made'; id: string }
  /** The text to find does not occur exactly once, unchanged since the base. */
  | { kind: 'stale' }
  | { kind: 'refused'; reason: string }

/** The narrow port a document turn uses. */
export interface DocReview {
  /** The one document titled `title` (case-insensitive) the token reaches; throws `CHAT_DOC_UNAVAILABLE`. */
  open(title: string, signal: AbortSignal): Promise<OpenedDoc>
  suggest(doc: OpenedDoc, change: DocChange, signal: AbortSignal): Promise<SuggestOutcome>
}

const Listing = z.object({
  documents: z.array(z.object({ docId: z.string(), title: z.string(), state: z.string().optional() })).max(10_000),
})
const Text = z.object({ text: z.string(), base: z.string().min(1) })
const Made = z.object({ id: z.string().max(64) })
const Failure = z.object({ error: z.object({ code: z.string().max(64) }) })

/** Longest answer read from the sidecar: a document's text and base fit well inside it. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024

const unavailable = (message: string) => new ChatError('CHAT_DOC_UNAVAILABLE', message)

async function answerOf(res: Response): Promise<unknown> {
  const body = await res.text()
  if (Buffer.byteLength(body) > MAX_ANSWER_BYTES) throw unavailable('the sidecar answered more than a document holds')
  try {
    return JSON.parse(body) as unknown
  } catch {
    return undefined
  }
}

const codeOf = (json: unknown): string | undefined => Failure.safeParse(json).data?.error.code

/** `ws://127.0.0.1:7600` → `http://127.0.0.1:7600`: the API shares the WebSocket's host and port. */
export function httpBaseOf(sidecarUrl: URL): string {
  return `${sidecarUrl.protocol === 'wss:' ? 'https' : 'http'}://${sidecarUrl.host}`
}

/** The review API of the sidecar at `sidecarUrl`, reached with `token`. */
export function createSidecarReview(sidecarUrl: URL, token: string): DocReview {
  const base = httpBaseOf(sidecarUrl)
  const auth = { authorization: `Bearer ${token}` }
  async function call(path: string, signal: AbortSignal, init: RequestInit = {}): Promise<[number, unknown]> {
    let res: Response
    try {
      res = await fetch(`${base}${path}`, { ...init, signal })
    } catch (err) {
      if (signal.aborted) throw err
      throw unavailable(`the sidecar at ${base} did not answer; is it running?`)
    }
    return [res.status, await answerOf(res)]
  }
  async function readable(docId: string, signal: AbortSignal): Promise<{ text: string; base: string } | undefined> {
    const [status, json] = await call(`/v1/docs/${encodeURIComponent(docId)}/text`, signal, { headers: auth })
    if (status === 200) {
      const parsed = Text.safeParse(json)
      if (parsed.success) return parsed.data
    }
    if (codeOf(json) === 'REVIEW_AGENT_TOKEN_UNKNOWN')
      throw unavailable('the sidecar does not know this chat’s agent token: mint one with `e2e-col agent token`')
    return undefined
  }
  return {
    async open(title, signal) {
      const [status, json] = await call('/v1/docs', signal)
      const listing = Listing.safeParse(json)
      if (status !== 200 || !listing.success) throw unavailable('the sidecar did not list its documents')
      const wanted = title.toLowerCase()
      const named = listing.data.documents.filter((d) => d.state !== 'removed' && d.title.toLowerCase() === wanted)
      const reached: OpenedDoc[] = []
      for (const d of named) {
        const read = await readable(d.docId, signal)
        if (read !== undefined) reached.push({ docId: d.docId, title: d.title, ...read })
      }
      const [only] = reached
      if (only !== undefined && reached.length === 1) return only
      if (reached.length > 1)
        throw unavailable(`${reached.length} documents are titled “${title}”: rename one to tell them apart`)
      throw unavailable(
        named.length === 0
          ? `no document is titled “${title}”`
          : `this chat’s agent token does not reach “${title}”: mint one that names it (e2e-col agent token)`,
      )
    },
    async suggest(doc, change, signal) {
      const [status, json] = await call(`/v1/docs/${encodeURIComponent(doc.docId)}/suggestions`, signal, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          base: doc.base,
          find: change.find,
          replace: change.replace,
          ...(change.note === '' ? {} : { note: change.note }),
        }),
      })
      const made = Made.safeParse(json)
      if (status === 201 && made.success) return { kind: 'made', id: made.data.id }
      const code = codeOf(json)
      if (code === 'SUGGESTION_STALE' || code === 'SUGGESTION_QUOTE_CHANGED') return { kind: 'stale' }
      return { kind: 'refused', reason: code ?? `HTTP ${status}` }
    },
  }
}
