import { describe, expect, it } from 'vitest'
import { DocsApiError } from '../docs-client.ts'
import { commentProblemText } from './comment-words.ts'

describe('what a page says when a comment is refused', () => {
  it('says a viewer may not comment, a changed quote is to be selected again, and a silent e2e-col sent nothing', () => {
    expect(commentProblemText(new DocsApiError('REVIEW_VIEWER_CANNOT_COMMENT', 'no'))).toMatch(
      /^You can view this document, not comment/,
    )
    expect(commentProblemText(new DocsApiError('REVIEW_COMMENT_QUOTE_CHANGED', 'no'))).toMatch(/select it again/)
    expect(commentProblemText(new TypeError('fetch failed'))).toMatch(
      /^e2e-col on this computer does not answer; nothing was sent/,
    )
  })

  it('names a code it has no words for, and keeps what was typed', () => {
    expect(commentProblemText(new DocsApiError('SOMETHING_NEW', 'x'))).toBe(
      'That did not work (SOMETHING_NEW); nothing was sent, your text is kept.',
    )
  })
})
