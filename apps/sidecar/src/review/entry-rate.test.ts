import { describe, expect, it } from 'vitest'
import { createEntryRate, ENTRY_RATE } from './entry-rate.ts'

describe("a member's rate of review entries", () => {
  it('has the values docs/review.md, protocol §9.5 and decision 0038 state', () => {
    expect(ENTRY_RATE).toEqual({ burst: 120, perMinute: 60, members: 256 })
  })

  it(`takes a burst of ${ENTRY_RATE.burst}, then ${ENTRY_RATE.perMinute} a minute; a refused message charges nothing`, () => {
    const rate = createEntryRate()
    let taken = 0
    for (let i = 0; i < 1000; i++) if (rate.take('mallory', 1, 0)) taken += 1
    expect(taken).toBe(ENTRY_RATE.burst)
    expect(rate.take('mallory', 1, 500)).toBe(false)
    // A minute later: exactly perMinute more, a big message still refused whole.
    expect(rate.take('mallory', ENTRY_RATE.perMinute + 1, 60_000)).toBe(false)
    expect(rate.take('mallory', ENTRY_RATE.perMinute, 60_000)).toBe(true)
    expect(rate.take('mallory', 1, 60_000)).toBe(false)
  })

  it("one member's flood leaves another member's comments alone; a message of no entries always passes", () => {
    const rate = createEntryRate()
    while (rate.take('mallory', 10, 0));
    expect(rate.take('mallory', 0, 0)).toBe(true)
    expect(rate.take('bob', 1, 0)).toBe(true)
  })

  it(`remembers at most ${ENTRY_RATE.members} members: the least recent is forgotten, not the flooder`, () => {
    const rate = createEntryRate({ burst: 2, perMinute: 1, members: 3 })
    expect(rate.take('mallory', 2, 0)).toBe(true)
    for (const m of ['a', 'b']) rate.take(m, 1, 0)
    expect(rate.take('mallory', 1, 0)).toBe(false) // charged again: now the most recent
    rate.take('c', 1, 0) // forgets 'a'
    expect(rate.take('mallory', 1, 0)).toBe(false)
  })
})
