/**
 * Reads the demo page's settings from its URL: `?sidecar=ws://127.0.0.1:7601&doc=<uuid>&name=Alice`
 * (the home page adds `&title=…`).
 */
import { isUuid } from '@e2e-col/protocol'

/** The page's settings. */
export interface PageParams {
  readonly sidecarUrl: string
  readonly docId: string
  readonly name: string
  /** The document's title, when the home page gave it (shown instead of the id). */
  readonly title: string | undefined
}

/**
 * Parses `search` (e.g. `location.search`).
 * @returns the settings, or a human-readable problem when one is missing or malformed
 */
export function readPageParams(search: string): { ok: true; params: PageParams } | { ok: false; problem: string } {
  const query = new URLSearchParams(search)
  const sidecarUrl = query.get('sidecar') ?? ''
  const docId = (query.get('doc') ?? '').toLowerCase()
  const name = (query.get('name') ?? '').trim().slice(0, 40) || 'me'
  if (!/^(wss?|https?):\/\/[^/]+/.test(sidecarUrl)) {
    return {
      ok: false,
      problem: 'This page needs ?sidecar=ws://HOST:PORT in its address (npm start prints ready-made links).',
    }
  }
  if (!isUuid(docId)) {
    return {
      ok: false,
      problem: 'This page needs ?doc=<document UUID> in its address (npm start prints ready-made links).',
    }
  }
  const title = (query.get('title') ?? '').trim().slice(0, 64) || undefined
  return { ok: true, params: { sidecarUrl, docId, name, title } }
}

/** The addresses a document page links to, each keeping the sidecar (and the name, title). */
export interface PageLinks {
  /** "Your documents": the home page of the same sidecar. */
  readonly home: string
  readonly text: string
  readonly rich: string
  /** The chat console of the same sidecar (the chat id is added by whoever has one). */
  readonly console: string
}

export function pageLinks(params: PageParams): PageLinks {
  const person = params.name === 'me' ? {} : { name: params.name }
  const home = new URLSearchParams({ ...person, sidecar: params.sidecarUrl })
  const doc = new URLSearchParams({
    ...person,
    sidecar: params.sidecarUrl,
    doc: params.docId,
    ...(params.title === undefined ? {} : { title: params.title }),
  })
  return {
    home: `/home.html?${home.toString()}`,
    text: `/?${doc.toString()}`,
    rich: `/rich.html?${doc.toString()}`,
    console: `/console.html?${new URLSearchParams({ sidecar: params.sidecarUrl }).toString()}`,
  }
}
