import { describe, expect, it } from 'vitest'
import { DEFAULT_COMPACTION, shouldCompact } from './compaction.ts'

describe('compaction policy', () => {
  it('never compacts a log of one row', () => {
    expect(shouldCompact({ rows: 1, bytes: 10_000_000, baseBytes: 0 })).toBe(false)
  })

  it('compacts at the row bound', () => {
    expect(shouldCompact({ rows: DEFAULT_COMPACTION.maxRows - 1, bytes: 100, baseBytes: 100 })).toBe(false)
    expect(shouldCompact({ rows: DEFAULT_COMPACTION.maxRows, bytes: 100, baseBytes: 100 })).toBe(true)
  })

  it('compacts when the log outgrows the compacted state by the growth factor plus slack', () => {
    const base = 100_000
    const limit = DEFAULT_COMPACTION.growthFactor * base + DEFAULT_COMPACTION.slackBytes
    expect(shouldCompact({ rows: 3, bytes: limit, baseBytes: base })).toBe(false)
    expect(shouldCompact({ rows: 3, bytes: limit + 1, baseBytes: base })).toBe(true)
  })
})
