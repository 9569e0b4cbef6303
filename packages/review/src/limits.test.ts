import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { REVIEW_LIMITS } from './limits.ts'

// The values docs/protocol.md §9.2 and decision 0034 state: a change here is a change there.
describe('the review bounds are the ones the docs state', () => {
  it('has the documented values', () => {
    expect(REVIEW_LIMITS).toEqual({
      maxQuoteBytes: 16 * 1024,
      maxNoteBytes: 4 * 1024,
      maxLabelBytes: 64,
      maxEntryBytes: 40 * 1024,
      maxOpenSuggestionsPerWriter: 100,
      maxCommentsPerWriter: 1000,
      maxEntriesPerUpdate: 64,
      maxStructsWalked: 65_536,
      maxBaseChars: 512 * 1024,
      maxMentions: 16,
      maxRepliesPerThread: 200,
    })
  })

  it('decision 0034 names each bound with its value', () => {
    const text = readFileSync(new URL('../../../docs/decisions/0034-review-structure.md', import.meta.url), 'utf8')
    for (const phrase of [
      '`maxQuoteBytes` 16 KiB',
      '`maxNoteBytes` 4 KiB',
      '`maxLabelBytes` 64',
      '`maxEntryBytes` 40 KiB',
      '`maxOpenSuggestionsPerWriter` 100',
      '`maxCommentsPerWriter` 1 000',
      '`maxEntriesPerUpdate` 64',
      '`maxStructsWalked` 65 536',
      '`maxBaseChars` 512 KiB',
      '`maxMentions` 16',
      '`maxRepliesPerThread` 200',
    ])
      expect(text.replaceAll('\n', ' ')).toContain(phrase)
  })
})
