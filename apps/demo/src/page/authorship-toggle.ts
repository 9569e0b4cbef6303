/**
 * The "Who wrote this" toggle both editor pages mount above their editor: when on, the text is
 * marked by author (name and colour as a tooltip and a tint) and a legend names each author, saying
 * plainly when one is not verified. It follows the document while on, asking the sidecar again when
 * text appears under a client id it has not named yet.
 * @see docs/documents.md "Who wrote this"
 */
import { acceptedSpans, type AcceptedSpan } from '@e2e-col/review'
import type * as Y from 'yjs'
import { authorLabel, creditLabel, fetchAuthors, type AuthorLabel, type AuthorRun, type AuthorView } from './authors.ts'

/** A stretch of the editor's text (editor positions) and who wrote it. */
export interface AuthorMark {
  readonly from: number
  readonly to: number
  readonly author: AuthorLabel
}

/** What an editor binding does with the marks. */
export interface AuthorMarks {
  /** The runs of text by client id (and accepted suggestion, of `spans`), in editor positions. */
  runs(spans: readonly AcceptedSpan[]): AuthorRun[]
  show(marks: readonly AuthorMark[]): void
}

export interface AuthorshipToggleOptions {
  /** The editor's element: the toggle goes just above it. */
  readonly editor: HTMLElement
  readonly doc: Y.Doc
  readonly sidecarUrl: string
  readonly docId: string
  readonly marks: AuthorMarks
}

/** The client ids a run's label names: its writer, or an accepted suggestion's suggester and decider. */
const named = (r: AuthorRun): number[] =>
  r.credit === undefined ? [r.client] : [r.credit.suggestion.writer, r.credit.suggestion.decidedBy]

// Marks follow typing at most this often.
const REFRESH_MS = 250

export function mountAuthorshipToggle(o: AuthorshipToggleOptions): void {
  const bar = document.createElement('div')
  bar.className = 'authors-bar'
  const button = document.createElement('button')
  button.id = 'authors-toggle'
  button.type = 'button'
  button.textContent = 'Who wrote this'
  button.setAttribute('aria-pressed', 'false')
  const legend = document.createElement('span')
  legend.id = 'authors-legend'
  bar.append(button, legend)
  o.editor.before(bar)

  let on = false
  let authors = new Map<number, AuthorView>()
  let timer: ReturnType<typeof setTimeout> | undefined

  async function refresh(): Promise<void> {
    timer = undefined
    if (!on) return
    const runs = o.marks.runs(acceptedSpans(o.doc))
    if (runs.some((r) => named(r).some((c) => !authors.has(c)))) authors = await fetchAuthors(o.sidecarUrl, o.docId)
    if (!on) return
    const marks = runs.map((r) => ({
      from: r.from,
      to: r.to,
      author: r.credit === undefined ? authorLabel(authors.get(r.client)) : creditLabel(r.credit, authors),
    }))
    o.marks.show(marks)
    showLegend(marks)
  }

  function showLegend(marks: readonly AuthorMark[]): void {
    const seen = new Map<string, AuthorLabel>()
    for (const m of marks) seen.set(m.author.label, m.author)
    legend.replaceChildren(
      ...[...seen.values()].map((a) => {
        const item = document.createElement('span')
        item.className = a.verified ? 'author' : 'author unverified'
        item.style.setProperty('--author-colour', a.colour)
        item.textContent = a.label
        return item
      }),
    )
  }

  const schedule = (): void => {
    if (on && timer === undefined) timer = setTimeout(() => void refresh(), REFRESH_MS)
  }
  o.doc.on('update', schedule)

  button.addEventListener('click', () => {
    on = !on
    button.setAttribute('aria-pressed', String(on))
    if (on) return void refresh()
    o.marks.show([])
    legend.replaceChildren()
  })
}
