import { describe, expect, test } from 'vitest'
import { sustainedRate } from './typing-speed.ts'

describe('the sustained send rate of the typing bench', () => {
  const pace = { sendsPerSecond: 1, burst: 5 }
  test('is 1/s for sends exactly one interval apart, however few', () => {
    expect(sustainedRate([5000], pace)).toBe(1)
    expect(sustainedRate([0, 1000, 2000, 3000], pace)).toBe(1)
  })
  test('exceeds 1/s when sends come closer than the interval, and is null without sends', () => {
    expect(sustainedRate([0, 500, 1000], pace)).toBe(1.5)
    expect(sustainedRate([], pace)).toBeNull()
  })
})
