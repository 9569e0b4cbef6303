import { describe, expect, test } from 'vitest'
import {
  authorName,
  historyErrorText,
  joinedLaterText,
  undoOffers,
  sizeText,
  versionText,
  whenText,
  type VersionItem,
} from './history-text.ts'

const clock = {
  time: (ms: number) => new Date(ms).toISOString().slice(11, 16),
  day: (ms: number) => new Date(ms).toISOString().slice(0, 10),
}
const at = (h: number, m: number, day = 2) => Date.UTC(2026, 11, day, h, m)
const now = at(12, 0)
const alice = { number: '+15555550101', name: 'Alice', you: true }
const bob = { number: '+15555550102', name: 'Bob', you: false }
const carol = { number: '+15555550103', name: null, you: false }
const v = (id: string, t: number, authors: VersionItem['authors'], extra: Partial<VersionItem> = {}): VersionItem => ({
  id,
  at: t,
  reason: 'quiet',
  authors,
  ...extra,
})

describe('the History panel’s words', () => {
  test('a version reads as its people and time, you as "You", an unnamed member by number, no ids', () => {
    const line = versionText(v('17', at(10, 42), [bob, alice, carol]), now, clock)
    expect(line).toBe('Bob, You, +15555550103 · 10:42')
    expect(line).not.toContain('17')
  })

  test('another day adds the day; a restore and group-relayed content say what they are', () => {
    expect(whenText(at(9, 5, 1), now, clock)).toBe('2026-12-01, 09:05')
    expect(versionText(v('1', at(11, 0), [alice], { reason: 'restore' }), now, clock)).toBe(
      'You · 11:00 · restored an earlier version',
    )
    expect(versionText(v('1', at(11, 0), [], { reason: 'catch-up' }), now, clock)).toBe(
      'Changes from the group · 11:00 · changes that arrived together',
    )
  })

  test('an undo names whose changes it undid', () => {
    expect(versionText(v('4', at(11, 5), [alice], { reason: 'revert', undid: bob }), now, clock)).toBe(
      'You · 11:05 · undid Bob’s changes',
    )
    expect(versionText(v('4', at(11, 5), [bob], { reason: 'revert', undid: alice }), now, clock)).toBe(
      'Bob · 11:05 · undid your changes',
    )
  })

  test('a version says how much longer or shorter the text became, so a wipe and the typing before it differ', () => {
    const typed = v('2', at(10, 42), [bob], { chars: 1200 })
    const wiped = v('3', at(10, 42), [bob], { chars: 0 })
    expect(versionText(typed, now, clock, v('1', at(10, 40), [alice], { chars: 0 }))).toBe(
      'Bob · 10:42 · +1200 characters',
    )
    expect(versionText(wiped, now, clock, typed)).toBe('Bob · 10:42 · \u22121200 characters')
    expect(versionText(v('4', at(10, 43), [bob], { chars: 1 }), now, clock, wiped)).toBe('Bob · 10:43 · +1 character')
    expect(sizeText(v('5', at(10, 44), [bob], { chars: 1 }), v('4', at(10, 43), [bob], { chars: 1 }))).toBe(
      'same length',
    )
    // The oldest version grew from nothing; a count the sidecar did not give says nothing.
    expect(sizeText(typed, undefined)).toBe('+1200 characters')
    expect(sizeText(v('6', at(10, 45), [bob]), typed)).toBeUndefined()
  })

  test('a blank shown name falls back to the number', () => {
    expect(authorName({ number: '+1555', name: '  ', you: false })).toBe('+1555')
  })

  test("undo offers each other person's changes since just after the version before, never your own", () => {
    const list = [v('3', at(11, 0), [bob, alice]), v('2', at(10, 42), [alice]), v('1', at(10, 0), [alice])]
    const offers = undoOffers(list, 0, now, clock)
    expect(offers).toEqual([{ author: bob.number, since: at(10, 42) + 1, label: 'Undo Bob’s changes since 10:42' }])
    // The oldest version has no version before it to start from.
    expect(undoOffers(list, 2, now, clock)).toEqual([])
  })

  test("after a person's wipe, undoing their newest entry undoes the wipe too; this entry alone is the second offer", () => {
    const list = [
      v('4', at(11, 5), [bob], { chars: 13 }),
      v('3', at(11, 0), [bob], { chars: 0, reason: 'catch-up' }),
      v('2', at(10, 42), [alice], { chars: 30 }),
      v('1', at(10, 0), [alice], { chars: 10 }),
    ]
    expect(undoOffers(list, 0, now, clock)).toEqual([
      { author: bob.number, since: at(10, 42) + 1, label: 'Undo Bob’s changes since 10:42 (2 entries)' },
      { author: bob.number, since: at(11, 0) + 1, label: 'Undo Bob’s changes since 11:00 (this entry only)' },
    ])
    // The wipe's own entry: his changes since the version before it (it starts his run).
    expect(undoOffers(list, 1, now, clock)).toEqual([
      { author: bob.number, since: at(10, 42) + 1, label: 'Undo Bob’s changes since 10:42' },
    ])
    // A run never reaches back past the second oldest version (the oldest has nothing before it).
    const all = [v('2', at(11, 0), [bob]), v('1', at(10, 0), [bob])]
    expect(undoOffers(all, 0, now, clock)).toEqual([
      { author: bob.number, since: at(10, 0) + 1, label: 'Undo Bob’s changes since 10:00' },
    ])
  })

  test('a restore names the version it restored', () => {
    const restore = v('5', at(11, 30), [alice], { reason: 'restore', restoredFrom: at(10, 42) })
    expect(versionText(restore, now, clock)).toBe('You · 11:30 · restored the version of 10:42')
    expect(versionText(v('5', at(11, 30), [alice], { reason: 'restore' }), now, clock)).toBe(
      'You · 11:30 · restored an earlier version',
    )
  })

  test('the joined-later note only when the first content held came relayed by the group', () => {
    const joined = v('1', at(9, 30), [], { chars: 120, reason: 'catch-up' })
    expect(joinedLaterText([joined], true, clock)).toMatch(
      /^You have history from when you joined on 2026-12-02, 09:30/,
    )
    // A member's edit arrived first, before the content it builds on (nothing shown yet): still joined later.
    const early = v('1', at(9, 29), [bob], { chars: 0, reason: 'catch-up' })
    const later = v('3', at(11, 0), [alice], { chars: 130 })
    expect(joinedLaterText([later, { ...joined, id: '2' }, early], true, clock)).toMatch(/joined on 2026-12-02, 09:29/)
    // Not the whole list yet: the oldest is not known.
    expect(joinedLaterText([joined], false, clock)).toBeUndefined()
    // The document began here: its first content was an edit of yours, or of a member you started it with.
    expect(joinedLaterText([v('1', at(9, 30), [alice], { chars: 5 })], true, clock)).toBeUndefined()
    expect(joinedLaterText([later, v('1', at(9, 30), [bob], { chars: 5 })], true, clock)).toBeUndefined()
    expect(joinedLaterText([v('1', at(9, 30), [], { chars: 0 })], true, clock)).toBeUndefined()
    expect(joinedLaterText([], true, clock)).toBeUndefined()
  })

  test('errors are sentences, never codes; an unknown code still reads as words', () => {
    for (const code of ['HISTORY_DOCUMENT_LEFT', 'HISTORY_UNKNOWN_VERSION', 'UNREACHABLE', 'HTTP_502']) {
      const text = historyErrorText(code)
      expect(text).not.toMatch(/[A-Z]+_[A-Z]+/)
      expect(text).toMatch(/\.$|\?$/)
    }
    expect(historyErrorText('HISTORY_DOCUMENT_LEFT')).not.toBe(historyErrorText('HTTP_502'))
    for (const code of ['UNREACHABLE', 'HISTORY_UNKNOWN_DOCUMENT', 'HISTORY_NOT_APPLIED', 'API_ORIGIN_NOT_ALLOWED'])
      expect(historyErrorText(code)).not.toMatch(/sidecar/i)
  })
})
