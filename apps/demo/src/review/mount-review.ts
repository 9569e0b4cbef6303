/**
 * Review on both editor pages: the document's open suggestions drawn in the editor as tracked
 * changes, and the Suggestions list beside it (numbered, before and after, who, note, status,
 * Accept and Reject for an editor). Both follow the page's Y.Doc: every change recomputes them from
 * the model, so they follow concurrent edits and decisions made anywhere. A decision is made
 * through this person's sidecar (`POST …/suggestions/<id>/accept|reject`), the one writer of
 * decisions (it checks the role and writes under this account's id, decision 0034); the page sees
 * the result when it replicates back. A viewer sees the marks and the list, no buttons (page.css).
 * Every text from the document is set with textContent.
 */
import type { Target } from '@e2e-col/review'
import type * as Y from 'yjs'
import { apiBase, callApi, DocsApiError } from '../docs-client.ts'
import { fetchAuthors, type AuthorView } from '../page/authors.ts'
import { element } from '../start-up.ts'
import { statusText, trackedOf, unknownWriters, type Tracked } from './tracked.ts'

/** A tracked change placed in the editor: the quoted range `[from, to)` in editor positions. */
export interface TrackedMark {
  readonly tracked: Tracked
  readonly from: number
  readonly to: number
}

/** What an editor binding does with tracked changes. */
export interface TrackedMarks {
  /** The editor position of `index` in text node `node`; undefined when the editor does not show it. */
  editorPosition(node: Y.Text, index: number): number | undefined
  show(marks: readonly TrackedMark[]): void
}

export interface ReviewOptions {
  readonly doc: Y.Doc
  /** The page's own text: suggestions on other roots are the other view's. */
  readonly target: Target
  readonly sidecarUrl: string
  readonly docId: string
  readonly marks: TrackedMarks
}

export const EMPTY_TEXT =
  'No suggestions yet. Suggestions made here, or by an agent through e2e-col, show up in this list.'
export const VIEWER_TEXT =
  'You can view this document, so you see its suggestions; only its editors accept or reject them.'

/** How often, and how far apart, the sidecar is asked to name a suggestion's writer. */
const NAME_TRIES = 10
const NAME_RETRY_MS = 500

const MARKUP = `
  <h2>Suggestions</h2>
  <p id="review-viewer" class="advice review-viewer"></p>
  <p id="review-problem" class="problem" role="alert" hidden></p>
  <p id="review-empty" class="review-empty" hidden></p>
  <ol id="review-list" class="review-list"></ol>`

export const problemText = (error: unknown): string => {
  const code = error instanceof DocsApiError ? error.code : 'UNREACHABLE'
  if (code === 'SUGGESTION_QUOTE_CHANGED')
    return 'That suggestion’s text has changed since it was made, so it cannot be accepted.'
  if (code === 'SUGGESTION_DECIDED') return 'Someone decided on that suggestion already.'
  if (code === 'REVIEW_FORBIDDEN') return 'You can view this document, not decide on its suggestions.'
  if (code === 'UNREACHABLE') return 'e2e-col on this computer does not answer; nothing was changed.'
  return `That did not work (${code}); nothing was changed.`
}

function span(className: string, text: string): HTMLElement {
  const el = document.createElement(
    className.startsWith('suggest-del') ? 'del' : className.startsWith('suggest-ins') ? 'ins' : 'span',
  )
  el.className = className
  el.textContent = text
  return el
}

function itemOf(t: Tracked, decide: (id: string, verb: 'accept' | 'reject') => void): HTMLElement {
  const li = document.createElement('li')
  li.className = 'review-item'
  li.dataset['suggestion'] = t.id
  li.dataset['status'] = t.stale ? 'stale' : t.status
  li.style.setProperty('--suggest-colour', t.colour)
  const head = document.createElement('p')
  head.className = 'review-head'
  head.append(
    span('review-number', `${t.number}.`),
    ' ',
    span('review-by', t.by),
    ' · ',
    span('review-status', statusText(t)),
  )
  const change = document.createElement('p')
  change.className = 'review-change'
  change.append(span('suggest-del review-before', t.find), ' → ', span('suggest-ins review-after', t.replace))
  li.append(head, change)
  if (t.note !== '') li.append(span('review-note', t.note))
  if (t.status === 'open') {
    const actions = document.createElement('div')
    actions.className = 'review-actions'
    for (const verb of t.stale ? (['reject'] as const) : (['accept', 'reject'] as const)) {
      const b = document.createElement('button')
      b.type = 'button'
      b.className = `review-${verb}`
      b.textContent = verb === 'accept' ? 'Accept' : 'Reject'
      b.addEventListener('click', () => decide(t.id, verb))
      actions.append(b)
    }
    li.append(actions)
  }
  return li
}

/** Fills `#review` and keeps it and the editor's tracked changes up to date. */
export function mountReview(o: ReviewOptions): { refresh(): void } {
  const panel = element('review')
  panel.innerHTML = MARKUP
  element('review-viewer').textContent = VIEWER_TEXT
  const list = element('review-list')
  const empty = element('review-empty')
  const problem = element('review-problem')
  let authors: ReadonlyMap<number, AuthorView> = new Map()
  /** How many times the sidecar was asked to name each writer. */
  const asked = new Map<number, number>()
  let timer: ReturnType<typeof setTimeout> | undefined

  const say = (text: string | undefined): void => {
    problem.textContent = text ?? ''
    problem.hidden = text === undefined
  }

  async function decide(id: string, verb: 'accept' | 'reject'): Promise<void> {
    say(undefined)
    try {
      await callApi(
        apiBase(o.sidecarUrl),
        'POST',
        `/v1/docs/${encodeURIComponent(o.docId)}/suggestions/${id}/${verb}`,
        {},
      )
    } catch (error) {
      say(problemText(error))
    }
  }

  // Names come from the sidecar: a writer it has not named yet is asked about before its
  // suggestions are drawn (so they do not flash as an unknown author), and again a little later
  // while the sidecar has not named it yet (it names a new client id once it has recorded it).
  async function learnNames(): Promise<void> {
    authors = await fetchAuthors(o.sidecarUrl, o.docId)
    draw()
    if (unknownWriters(o.doc, authors).some((w) => (asked.get(w) ?? 0) < NAME_TRIES))
      setTimeout(schedule, NAME_RETRY_MS)
  }

  function draw(): void {
    timer = undefined
    const tracked = trackedOf(o.doc, o.target, authors)
    const marks: TrackedMark[] = []
    for (const t of tracked) {
      const from = t.place === undefined ? undefined : o.marks.editorPosition(t.place.node, t.place.index)
      if (t.place !== undefined && from !== undefined) marks.push({ tracked: t, from, to: from + t.place.len })
    }
    o.marks.show(marks)
    list.replaceChildren(...tracked.map((t) => itemOf(t, (id, verb) => void decide(id, verb))))
    empty.textContent = EMPTY_TEXT
    empty.hidden = tracked.length > 0
  }

  // After the editor binding has applied the same change (it observes the Y.Doc synchronously).
  const schedule = (): void => {
    if (timer !== undefined) return
    timer = setTimeout(() => {
      const unknown = unknownWriters(o.doc, authors).filter((w) => (asked.get(w) ?? 0) < NAME_TRIES)
      for (const w of unknown) asked.set(w, (asked.get(w) ?? 0) + 1)
      if (unknown.length > 0) void learnNames()
      else draw()
    }, 0)
  }
  o.doc.on('update', schedule)
  schedule()
  return { refresh: schedule }
}
