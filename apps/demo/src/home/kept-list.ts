/**
 * The home page while its sidecar does not answer: the documents it listed last time (kept in this
 * browser's localStorage, titles and ids only), each opening the copy this browser kept; the New
 * document form off; and the one thing to do, as a command.
 */
import type { DocumentItem } from '../docs-client.ts'
import { make } from './make.ts'

/** What is kept of a listing: enough to list and open the documents. */
export interface KeptDoc {
  readonly docId: string
  readonly title: string
  readonly state: 'active' | 'removed'
}
export interface KeptList {
  readonly you: string
  readonly documents: readonly KeptDoc[]
}

/** Most documents kept (the API lists at most this many anyway). */
const MAX_KEPT = 200
const key = (sidecarUrl: string): string => `e2e-col:home:${sidecarUrl}`

/** What the page says while the sidecar does not answer; `command` parts go in <code>. */
export const AWAY_PARTS: readonly { text: string; command?: true }[] = [
  { text: 'e2e-col is not running on this computer, so nothing can be shared, made or sent now. Start it: ' },
  { text: 'npm start', command: true },
  { text: ' for the demo (while it runs, type ' },
  { text: 'a', command: true },
  { text: ' or ' },
  { text: 'b', command: true },
  { text: ' and Enter in its terminal to start Alice’s or Bob’s again), or ' },
  { text: 'e2e-col up', command: true },
  { text: '. This page finds it by itself.' },
]

/** Keeps the listing for the next time the sidecar does not answer. */
export function keepList(sidecarUrl: string, you: string, documents: readonly DocumentItem[]): void {
  const kept: KeptList = {
    you,
    documents: documents.slice(0, MAX_KEPT).map((d) => ({ docId: d.docId, title: d.title, state: d.state })),
  }
  try {
    localStorage.setItem(key(sidecarUrl), JSON.stringify(kept))
  } catch {
    // Storage full or off: the page just has nothing to show next time.
  }
}

/** The listing kept last time, or undefined. What is read back is checked, never trusted. */
export function keptList(sidecarUrl: string): KeptList | undefined {
  try {
    const raw = JSON.parse(localStorage.getItem(key(sidecarUrl)) ?? 'null') as Partial<KeptList> | null
    if (raw === null || typeof raw.you !== 'string' || !Array.isArray(raw.documents)) return undefined
    const documents = raw.documents.filter(
      (d): d is KeptDoc =>
        typeof d?.docId === 'string' && typeof d.title === 'string' && (d.state === 'active' || d.state === 'removed'),
    )
    return { you: raw.you, documents: documents.slice(0, MAX_KEPT) }
  } catch {
    return undefined
  }
}

/** A kept document's card: its title opens the copy this browser kept. */
export function keptCard(doc: KeptDoc, editorLink: string): HTMLLIElement {
  const card = make(
    'li',
    { className: 'card' },
    make('a', { className: 'title', href: editorLink }, doc.title),
    make(
      'p',
      { className: 'meta' },
      make('span', { className: 'people-text' }, 'opens the copy this browser kept; edits are sent when e2e-col runs'),
    ),
  )
  card.dataset['doc'] = doc.title
  card.dataset['state'] = 'kept'
  return card
}

/** Fills `el` with the away sentence, its commands in <code>. */
export function showAway(el: HTMLElement): void {
  el.replaceChildren(...AWAY_PARTS.map((p) => (p.command === true ? make('code', {}, p.text) : p.text)))
  el.hidden = false
  el.dataset['away'] = 'true'
}
