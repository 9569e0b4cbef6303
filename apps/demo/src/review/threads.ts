/**
 * What a page shows of a document's comment threads (issue #40): each thread on the page's own
 * text with who wrote it in words, the text it reads now (or, once that text is deleted, the quote
 * it was made on, so it is never lost), its body, replies and status, and where its range is now
 * for the editor's highlight. Recomputed from the model on every change. Pure: the page draws it.
 */
import { listComments, placeOfSuggestion, type Comment, type Target } from '@e2e-col/review'
import type * as Y from 'yjs'
import { suggesterOf, type AuthorView } from '../page/authors.ts'

export interface ThreadReply {
  readonly id: string
  readonly by: string
  readonly body: string
}

/** One thread as the list and the editor's highlight show it. */
export interface Thread {
  readonly id: string
  /** "Alice", "You", "Claude, for Alice". */
  readonly by: string
  readonly colour: string
  /** The text the range reads now, or "on deleted text: “…”" when orphaned. */
  readonly quote: string
  readonly orphaned: boolean
  readonly body: string
  readonly replies: readonly ThreadReply[]
  readonly resolved: boolean
  /** Where the range is now (undefined when orphaned). */
  readonly place?: { readonly node: Y.Text; readonly index: number; readonly len: number }
}

const sameTarget = (a: Target, b: Target): boolean => a.name === b.name && a.kind === b.kind

/** The words for a thread's range: what it reads now, or the quote it was made on once deleted. */
export function quoteOf(c: Pick<Comment, 'current' | 'orphaned' | 'entry'>): string {
  return c.orphaned ? `on deleted text: “${c.entry.quote}”` : `“${c.current}”`
}

export const threadStatus = (t: Pick<Thread, 'resolved'>): string => (t.resolved ? 'resolved' : 'open')

/** The threads on `target` of `doc`, oldest first. */
export function threadsOf(doc: Y.Doc, target: Target, authors: ReadonlyMap<number, AuthorView>): Thread[] {
  return listComments(doc)
    .filter((c) => sameTarget(c.entry.target, target))
    .map((c) => {
      const place = c.orphaned ? undefined : placeOfSuggestion(doc, c.entry)
      return {
        id: c.id,
        ...suggesterOf(c, authors),
        quote: quoteOf(c),
        orphaned: c.orphaned,
        body: c.entry.body,
        replies: c.replies.map((r) => ({ id: r.id, by: suggesterOf(r, authors).by, body: r.entry.body })),
        resolved: c.resolved,
        ...(place === undefined ? {} : { place }),
      }
    })
}

/** The threads' and replies' writers (client ids) that `authors` does not name yet. */
export function unknownCommenters(doc: Y.Doc, authors: ReadonlyMap<number, AuthorView>): number[] {
  const writers = listComments(doc).flatMap((c) => [c.writer, ...c.replies.map((r) => r.writer)])
  return [...new Set(writers)].filter((w) => !authors.has(w))
}
