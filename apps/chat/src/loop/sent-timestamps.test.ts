import { describe, expect, it } from 'vitest'
import { createSentTimestamps } from './sent-timestamps.ts'

describe('sent timestamps', () => {
  it('remember up to the bound, forgetting the oldest first; a repeat counts as new', () => {
    const sent = createSentTimestamps(3)
    for (const t of [1, 2, 3]) sent.remember(t)
    sent.remember(1)
    sent.remember(4)
    expect([1, 2, 3, 4].map((t) => sent.has(t))).toEqual([true, false, true, true])
    expect(sent.size).toBe(3)
  })
  it.each([0, -1, 1.5])('refuse a bound of %d', (n) => {
    expect(() => createSentTimestamps(n)).toThrow('maxEntries must be a positive integer')
  })
  it('take a bound of one', () => {
    const sent = createSentTimestamps(1)
    sent.remember(1)
    sent.remember(2)
    expect([sent.has(1), sent.has(2), sent.size]).toEqual([false, true, 1])
  })
})
