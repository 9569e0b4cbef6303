/**
 * Comments on both editor pages (issue #40): the Comments list under the Suggestions (each thread
 * with who, the text it reads now or the quote of deleted text, body, replies, status, and Reply,
 * Resolve or Reopen), the box to comment on the editor's selection, and the highlights in the
 * editor. Everything follows the page's Y.Doc: every change recomputes it from the model
 * (threads.ts). Writes go through this person's sidecar, which checks the role and sends mentions;
 * the page sees them when they replicate back. A viewer sees the threads and no controls
 * (page.css, `body[data-comments]`). Every text from the document is set with textContent.
 */
import type { Target } from '@e2e-col/review'
import type * as Y from 'yjs'
import { apiBase, callApi } from '../docs-client.ts'
import { fetchAuthors, type AuthorView } from '../page/authors.ts'
import { element } from '../start-up.ts'
import { COMMENTS_EMPTY_TEXT, COMMENTS_VIEWER_TEXT, commentProblemText, SELECT_FIRST_TEXT } from './comment-words.ts'
import { threadsOf, threadStatus, unknownCommenters, type Thread } from './threads.ts'

/** A thread placed in the editor: its range `[from, to)` in editor positions. */
export interface CommentMark {
  readonly thread: Thread
  readonly from: number
  readonly to: number
}

/** What an editor binding does with comment highlights. */
export interface CommentMarks {
  /** The editor position of `index` in text node `node`; undefined when the editor does not show it. */
  editorPosition(node: Y.Text, index: number): number | undefined
  show(marks: readonly CommentMark[]): void
}

/** A selected range as the sidecar's `GET …/text` counts it, and the text it reads. */
export interface CommentSelection {
  readonly index: number
  readonly length: number
  readonly quote: string
}

export interface CommentsOptions {
  readonly doc: Y.Doc
  readonly target: Target
  readonly sidecarUrl: string
  readonly docId: string
  readonly marks: CommentMarks
  /** The editor's selection now; undefined when nothing is selected. */
  readonly selection: () => CommentSelection | undefined
}

/** What the list's buttons do; `drafts` keeps half-typed replies across redraws. */
interface Actions {
  readonly drafts: Map<string, string>
  reply(id: string, body: string): void
  setResolved(id: string, resolved: boolean): void
}

const NAME_TRIES = 10
const NAME_RETRY_MS = 500

const MARKUP = `
  <h2>Comments</h2>
  <p id="comments-viewer" class="advice"></p>
  <form id="comment-new" class="comment-new">
    <input id="comment-body" class="comment-input" placeholder="Select text, then write a comment" autocomplete="off">
    <button id="comment-add" type="submit">Comment</button>
  </form>
  <p id="comments-problem" class="problem" role="alert" hidden></p>
  <p id="comments-empty" class="review-empty" hidden></p>
  <ol id="comments-list" class="comments-list"></ol>`

function textOf(tag: string, className: string, text: string): HTMLElement {
  const el = document.createElement(tag)
  el.className = className
  el.textContent = text
  return el
}

function button(className: string, label: string, type: 'button' | 'submit'): HTMLButtonElement {
  const b = document.createElement('button')
  b.type = type
  b.className = className
  b.textContent = label
  return b
}

function actionsOf(t: Thread, act: Actions): HTMLElement {
  const form = document.createElement('form')
  form.className = 'comment-actions'
  const input = document.createElement('input')
  input.className = 'comment-reply-body comment-input'
  input.placeholder = 'Reply'
  input.autocomplete = 'off'
  input.value = act.drafts.get(t.id) ?? ''
  input.addEventListener('input', () => act.drafts.set(t.id, input.value))
  const toggle = t.resolved
    ? button('comment-reopen', 'Reopen', 'button')
    : button('comment-resolve', 'Resolve', 'button')
  toggle.addEventListener('click', () => act.setResolved(t.id, !t.resolved))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    act.reply(t.id, input.value)
  })
  form.append(input, button('comment-reply', 'Reply', 'submit'), toggle)
  return form
}

function itemOf(t: Thread, act: Actions): HTMLElement {
  const li = document.createElement('li')
  li.className = 'comment-item'
  li.dataset['comment'] = t.id
  li.dataset['status'] = threadStatus(t)
  li.style.setProperty('--suggest-colour', t.colour)
  const head = document.createElement('p')
  head.className = 'comment-head'
  head.append(textOf('span', 'comment-by', t.by), ' · ', textOf('span', 'comment-status', threadStatus(t)))
  const quote = textOf('p', t.orphaned ? 'comment-quote comment-orphaned' : 'comment-quote', t.quote)
  const replies = document.createElement('ol')
  replies.className = 'comment-replies'
  for (const r of t.replies) {
    const item = document.createElement('li')
    item.className = 'comment-reply-item'
    item.append(textOf('span', 'comment-reply-by', r.by), ': ', textOf('span', 'comment-reply-text', r.body))
    replies.append(item)
  }
  li.append(head, quote, textOf('p', 'comment-body', t.body), replies, actionsOf(t, act))
  return li
}

/** Replaces the list, keeping the focus (and caret) of a reply box being typed in. */
function redrawList(list: HTMLElement, items: readonly HTMLElement[]): void {
  const active = document.activeElement
  const typing =
    active instanceof HTMLInputElement && active.classList.contains('comment-reply-body')
      ? active.closest<HTMLElement>('.comment-item')?.dataset['comment']
      : undefined
  list.replaceChildren(...items)
  if (typing === undefined) return
  const again = list.querySelector<HTMLInputElement>(`.comment-item[data-comment="${typing}"] .comment-reply-body`)
  again?.focus()
  again?.setSelectionRange(again.value.length, again.value.length)
}

/** Fills `#comments` and keeps it and the editor's comment highlights up to date. */
export function mountComments(o: CommentsOptions): { refresh(): void } {
  element('comments').innerHTML = MARKUP
  element('comments-viewer').textContent = COMMENTS_VIEWER_TEXT
  const list = element('comments-list')
  const empty = element('comments-empty')
  const problem = element('comments-problem')
  const box = element('comment-body') as HTMLInputElement
  const path = `/v1/docs/${encodeURIComponent(o.docId)}/comments`
  let authors: ReadonlyMap<number, AuthorView> = new Map()
  /** How many times the sidecar was asked to name each writer. */
  const asked = new Map<number, number>()
  const unnamed = (): number[] => unknownCommenters(o.doc, authors).filter((w) => (asked.get(w) ?? 0) < NAME_TRIES)
  let timer: ReturnType<typeof setTimeout> | undefined

  const say = (text: string | undefined): void => {
    problem.textContent = text ?? ''
    problem.hidden = text === undefined
  }
  /** Posts through this person's sidecar; says a refusal in words and returns whether it worked. */
  const post = async (sub: string, body: unknown): Promise<boolean> => {
    say(undefined)
    try {
      await callApi(apiBase(o.sidecarUrl), 'POST', `${path}${sub}`, body)
      return true
    } catch (error) {
      say(commentProblemText(error))
      return false
    }
  }
  const act: Actions = {
    drafts: new Map(),
    reply: (id, body) => {
      if (body.trim() === '') return
      void post(`/${id}/replies`, { body }).then((ok) => {
        if (ok) act.drafts.delete(id)
        if (ok) schedule()
      })
    },
    setResolved: (id, resolved) => void post(`/${id}/${resolved ? 'resolve' : 'reopen'}`, {}),
  }
  element('comment-new').addEventListener('submit', (event) => {
    event.preventDefault()
    const sel = o.selection()
    if (sel === undefined) return say(SELECT_FIRST_TEXT)
    if (box.value.trim() === '') return say('Write the comment first, then press Comment.')
    const body = box.value
    void post('', { ...sel, body, target: o.target }).then((ok) => {
      if (ok && box.value === body) box.value = ''
    })
  })

  function draw(): void {
    timer = undefined
    const threads = threadsOf(o.doc, o.target, authors)
    const marks: CommentMark[] = []
    for (const t of threads) {
      const from = t.place === undefined || t.resolved ? undefined : o.marks.editorPosition(t.place.node, t.place.index)
      if (t.place !== undefined && from !== undefined) marks.push({ thread: t, from, to: from + t.place.len })
    }
    o.marks.show(marks)
    redrawList(
      list,
      threads.map((t) => itemOf(t, act)),
    )
    empty.textContent = COMMENTS_EMPTY_TEXT
    empty.hidden = threads.length > 0
  }

  // Names come from the sidecar; a writer it has not named yet is asked about again a little later.
  async function learnNames(): Promise<void> {
    authors = await fetchAuthors(o.sidecarUrl, o.docId)
    draw()
    if (unnamed().length > 0) setTimeout(schedule, NAME_RETRY_MS)
  }

  // After the editor binding has applied the same change (it observes the Y.Doc synchronously).
  function schedule(): void {
    if (timer !== undefined) return
    timer = setTimeout(() => {
      const unknown = unnamed()
      for (const w of unknown) asked.set(w, (asked.get(w) ?? 0) + 1)
      if (unknown.length > 0) void learnNames()
      else draw()
    }, 0)
  }
  o.doc.on('update', schedule)
  schedule()
  return { refresh: schedule }
}
