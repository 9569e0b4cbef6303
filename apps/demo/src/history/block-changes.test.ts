import { describe, expect, test } from 'vitest'
import { changedBlocks, MAX_COMPARED_BLOCKS } from './block-changes.ts'

describe('which blocks of a rich-text version differ from now', () => {
  test('blocks kept in order are unmarked; an edited or removed one is marked', () => {
    const version = ['p: Day 1', 'p: Day 2', 'h: Notes', 'p: Bring a hat']
    const now = ['p: Day 1', 'p: Day 2, Porto', 'p: Bring a hat', 'p: New line']
    expect(changedBlocks(now, version)).toEqual([false, true, true, false])
  })

  test('everything deleted since: every block is marked', () => {
    expect(changedBlocks([], ['p: a', 'p: b'])).toEqual([true, true])
  })

  test('repeated blocks are matched once each', () => {
    expect(changedBlocks(['p: x'], ['p: x', 'p: x'])).toEqual([false, true])
  })

  test('past the bound every block counts as changed instead of a huge table', () => {
    const many = Array.from({ length: MAX_COMPARED_BLOCKS + 1 }, (_, i) => `p: ${i}`)
    expect(changedBlocks(many, many).every((c) => c)).toBe(true)
  })
})
