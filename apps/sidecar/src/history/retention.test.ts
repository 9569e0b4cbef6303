import { describe, expect, it } from 'vitest'
import { versionsToDrop, type RetentionPolicy } from './retention.ts'

const DAY = 86_400_000
const NOW = Date.UTC(2026, 11, 2, 12)
const policy: RetentionPolicy = { allDays: 7, dailyDays: 90, maxBytes: 1_000_000 }
const v = (id: number, daysAgo: number, bytes = 100) => ({ id, at: NOW - daysAgo * DAY, bytes })

describe('which versions the retention policy keeps', () => {
  it('keeps every version of the last seven days', () => {
    const recent = [v(1, 6.9), v(2, 6.8), v(3, 0.1), v(4, 0)]
    expect(versionsToDrop(recent, NOW, policy)).toEqual([])
  })

  it('keeps the newest of each day up to ninety days, then the newest of each month', () => {
    const old = [
      v(1, 10.1), // same UTC day as 2 and 3: only the newest (3) stays
      v(2, 10.05),
      v(3, 10.0),
      v(4, 11),
      v(5, 120), // 2026-08-04 and 2026-08-20: one a month
      v(6, 104),
      v(7, 0),
    ]
    expect(versionsToDrop(old, NOW, policy)).toEqual([
      { id: 2, at: NOW - 10.05 * DAY, reason: 'one-a-day' },
      { id: 1, at: NOW - 10.1 * DAY, reason: 'one-a-day' },
      { id: 5, at: NOW - 120 * DAY, reason: 'one-a-month' },
    ])
  })

  it('drops the oldest kept versions beyond the byte bound, never the newest', () => {
    const big = [v(1, 3, 600), v(2, 2, 600), v(3, 1, 600)]
    expect(versionsToDrop(big, NOW, { ...policy, maxBytes: 1300 }).map((d) => [d.id, d.reason])).toEqual([
      [1, 'byte-bound'],
    ])
    // A newest version larger than the bound on its own is still kept.
    expect(versionsToDrop([v(1, 1, 5000)], NOW, { ...policy, maxBytes: 1000 })).toEqual([])
  })
})
