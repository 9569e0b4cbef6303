/**
 * What a page shows of a document's suggestions (issue #40, docs/review.md "What a person sees"):
 * each suggestion of the page's own text, numbered, with who made it in words, its colour, and
 * where its quoted range is now. Recomputed from the model (`@e2e-col/review`) on every change of
 * the page's Y.Doc, so the marks follow concurrent edits. Pure: the page draws what this returns.
 */
import { listSuggestions, placeOfSuggestion, type Suggestion, type Target } from '@e2e-col/review'
import type * as Y from 'yjs'
import { suggesterOf, type AuthorView } from '../page/authors.ts'

/** One suggestion as both the editor marks and the list show it. */
export interface Tracked {
  readonly id: string
  /** 1, 2, … in the order the suggestions were made. */
  readonly number: number
  readonly find: string
  readonly replace: string
  readonly note: string
  /** "Alice", "You", "Claude, for Alice", "Claude, for you". */
  readonly by: string
  readonly colour: string
  readonly status: Suggestion['status']
  /** Open, and its quoted text changed: it cannot be accepted. */
  readonly stale: boolean
  /** Where the quoted range is now (open ones only; undefined when it no longer resolves). */
  readonly place?: { readonly node: Y.Text; readonly index: number; readonly len: number }
}

const sameTarget = (a: Target, b: Target): boolean => a.name === b.name && a.kind === b.kind

/** The suggestions on `target` of `doc`, numbered, oldest first. */
export function trackedOf(doc: Y.Doc, target: Target, authors: ReadonlyMap<number, AuthorView>): Tracked[] {
  return listSuggestions(doc)
    .filter((s) => sameTarget(s.entry.target, target))
    .map((s, i) => {
      const place = s.status === 'open' ? placeOfSuggestion(doc, s.entry) : undefined
      return {
        id: s.id,
        number: i + 1,
        find: s.entry.find,
        replace: s.entry.replace,
        note: s.entry.note,
        ...suggesterOf(s, authors),
        status: s.status,
        stale: s.stale,
        ...(place === undefined ? {} : { place }),
      }
    })
}

/** The suggestions' writers (client ids) that `authors` does not name yet. */
export function unknownWriters(doc: Y.Doc, authors: ReadonlyMap<number, AuthorView>): number[] {
  return [...new Set(listSuggestions(doc).map((s) => s.writer))].filter((w) => !authors.has(w))
}

/** The hover text of a tracked change: who, the note, and what it would do. */
export function hoverText(t: Tracked): string {
  const what = t.replace === '' ? `delete “${t.find}”` : `replace “${t.find}” with “${t.replace}”`
  const head = `${t.number}. ${t.by} suggests: ${what}`
  const note = t.note === '' ? '' : `\n${t.note}`
  const stale = t.stale ? '\nStale: the quoted text changed since, so it cannot be accepted.' : ''
  return head + note + stale
}

/** The line of the list: "1. Claude, for Alice · open" with before and after beside it. */
export function statusText(t: Tracked): string {
  if (t.status === 'open') return t.stale ? 'stale: the quoted text changed' : 'open'
  return t.status
}
