/**
 * What `GET /v1/docs/<id>/text` answers: the text an agent reads and the base it reads it at.
 */
import type * as Y from 'yjs'
import { baseOf } from './base.ts'
import type { Target } from './structure.ts'
import { extractOrThrow } from './suggestions.ts'

export interface ReadText {
  /** Plain text (what `find` is matched against). */
  readonly text: string
  /** Markdown where the binding has structure; equal to `text` for a `Y.Text`. */
  readonly markdown: string
  /** The base token to send back with a suggestion. */
  readonly base: string
}

/** @throws ReviewError REVIEW_BAD_INPUT when the target's root is of another type */
export function readText(doc: Y.Doc, target: Target): ReadText {
  const { text, markdown } = extractOrThrow(doc, target)
  return { text, markdown, base: baseOf(doc) }
}
