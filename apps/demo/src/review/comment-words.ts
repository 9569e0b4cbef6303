/**
 * What a page says when a comment, reply, resolve or reopen is refused: in words, and that
 * nothing typed was lost (the box keeps it). Pure.
 */
import { DocsApiError } from '../docs-client.ts'

export const COMMENTS_EMPTY_TEXT = 'No comments yet. Select text in the editor, write a comment and press Comment.'
export const COMMENTS_VIEWER_TEXT =
  'You can view this document, so you see its comments; only its editors and commenters write, reply or resolve.'
export const SELECT_FIRST_TEXT = 'Select the text to comment on first, then press Comment.'

export function commentProblemText(error: unknown): string {
  const code = error instanceof DocsApiError ? error.code : 'UNREACHABLE'
  if (code === 'REVIEW_VIEWER_CANNOT_COMMENT') return 'You can view this document, not comment on it; nothing was sent.'
  if (code === 'REVIEW_COMMENT_QUOTE_CHANGED')
    return 'The selected text changed before the comment was sent; select it again (your comment is kept).'
  if (code === 'REVIEW_BAD_INPUT') return 'Select text within one paragraph to comment on it (your comment is kept).'
  if (code === 'REVIEW_TOO_LARGE') return 'That is too long for a comment; shorten it or the selection.'
  if (code === 'REVIEW_TOO_MANY') return 'This thread, or your comments, reached their limit; nothing was sent.'
  if (code === 'REVIEW_NOT_FOUND') return 'That thread is not in this document; nothing was sent.'
  if (code === 'UNREACHABLE') return 'e2e-col on this computer does not answer; nothing was sent, your text is kept.'
  return `That did not work (${code}); nothing was sent, your text is kept.`
}
