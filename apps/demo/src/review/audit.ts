/**
 * The review's audit, as the History panel lists it: every suggestion, decision, comment, reply and
 * resolution the document holds, with who (an agent "for" its person) and when, newest first. Read
 * from the page's Y.Doc (`@e2e-col/review`), so it is what every member's replica holds. Times are
 * the writers' own clocks, as the review entries carry them. Pure: the panel draws what this returns.
 * @see docs/review.md "Audit"
 */
import { listComments, listSuggestions, type CommentEntry, type SuggestionEntry } from '@e2e-col/review'
import type * as Y from 'yjs'
import { authorLabel, suggesterOf, type AuthorView } from '../page/authors.ts'

/** One line of the audit: when, and what happened in words. */
export interface AuditLine {
  readonly at: number
  readonly text: string
}

/** The most lines the panel lists (the newest). */
export const MAX_AUDIT_LINES = 100
/** Quotes and bodies are cut to this many characters in a line. */
const CUT = 60

const cut = (s: string): string => (s.length <= CUT ? s : `${s.slice(0, CUT - 1)}…`)

const changeOf = (e: SuggestionEntry): string =>
  e.replace === '' ? `delete “${cut(e.find)}”` : `replace “${cut(e.find)}” with “${cut(e.replace)}”`

/** "Carol", "You", "Claude, for Alice": a comment's writer. */
const commenter = (c: { writer: number; entry: CommentEntry }, authors: ReadonlyMap<number, AuthorView>): string =>
  suggesterOf(c, authors).by

/** The audit of `doc`, newest first, at most {@link MAX_AUDIT_LINES} lines. */
export function auditOf(doc: Y.Doc, authors: ReadonlyMap<number, AuthorView>): AuditLine[] {
  const lines: AuditLine[] = []
  const person = (client: number): string => authorLabel(authors.get(client)).label
  for (const s of listSuggestions(doc)) {
    const { by } = suggesterOf(s, authors)
    const change = changeOf(s.entry)
    lines.push({ at: s.entry.at, text: `${by} suggested: ${change}` })
    const d = s.decision
    if (d === undefined || s.decidedBy === undefined) continue
    const text =
      d.status === 'withdrawn'
        ? `${by} withdrew the suggestion: ${change}`
        : `${person(s.decidedBy)} ${d.status} the suggestion of ${by}: ${change}`
    lines.push({ at: d.at, text })
  }
  for (const c of listComments(doc)) {
    const quote = cut(c.entry.quote)
    lines.push({ at: c.entry.at, text: `${commenter(c, authors)} commented on “${quote}”: ${cut(c.entry.body)}` })
    for (const r of c.replies)
      lines.push({ at: r.entry.at, text: `${commenter(r, authors)} replied on “${quote}”: ${cut(r.entry.body)}` })
    const res = c.resolution
    if (res !== undefined)
      lines.push({
        at: res.at,
        text: `${person(res.by)} ${res.resolved ? 'resolved' : 'reopened'} the comment on “${quote}”`,
      })
  }
  return lines.sort((a, b) => b.at - a.at).slice(0, MAX_AUDIT_LINES)
}
