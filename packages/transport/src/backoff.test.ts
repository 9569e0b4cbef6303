import { describe, expect, test } from 'vitest'
import { DEFAULT_BACKOFF, nextDelay } from './backoff.ts'

const options = { baseMs: 100, maxMs: 2_000, factor: 2 }

describe('nextDelay', () => {
  test('doubles the nominal delay per attempt, with at most half of it random', () => {
    expect([0, 1, 2, 3].map((n) => nextDelay(n, () => 0, options))).toEqual([50, 100, 200, 400])
    expect([0, 1, 2, 3].map((n) => nextDelay(n, () => 0.999_999, options))).toEqual([100, 200, 400, 800])
  })

  test('never exceeds the cap, even for huge attempt counts', () => {
    for (const attempt of [5, 10, 100, 10_000, Number.MAX_SAFE_INTEGER]) {
      const delay = nextDelay(attempt, () => 0.999, options)
      expect(delay).toBeLessThanOrEqual(2_000)
      expect(delay).toBeGreaterThanOrEqual(1_000)
    }
  })

  test('spreads clients apart: different random draws give different delays', () => {
    const delays = new Set([0.1, 0.3, 0.5, 0.7, 0.9].map((r) => nextDelay(4, () => r, options)))
    expect(delays.size).toBe(5)
  })

  test('treats invalid attempts and out-of-range random values as the first attempt / no jitter', () => {
    expect(nextDelay(-3, () => 0, options)).toBe(50)
    expect(nextDelay(Number.NaN, () => 0, options)).toBe(50)
    expect(nextDelay(0, () => 7, options)).toBe(50)
  })

  test('a fractional attempt counts as the attempt below it; an infinite one as the first', () => {
    expect(nextDelay(1.5, () => 0, options)).toBe(100)
    expect(nextDelay(2.99, () => 0, options)).toBe(200)
    expect(nextDelay(Number.POSITIVE_INFINITY, () => 0, options)).toBe(50)
  })

  test('a random value outside [0, 1) (negative, or exactly 1) adds no jitter', () => {
    expect(nextDelay(0, () => -0.5, options)).toBe(50)
    expect(nextDelay(0, () => 1, options)).toBe(50)
    expect(nextDelay(0, () => 0.5, options)).toBe(75)
  })

  test('without a cap, the exponent stops at 64: a huge attempt still gives a finite delay', () => {
    const uncapped = { baseMs: 1, maxMs: Number.POSITIVE_INFINITY, factor: 2 }
    expect(nextDelay(64, () => 0, uncapped)).toBe(2 ** 63)
    expect(nextDelay(10_000, () => 0, uncapped)).toBe(2 ** 63)
  })

  test('defaults start at 250 ms and cap at 30 s', () => {
    expect(nextDelay(0, () => 0)).toBe(DEFAULT_BACKOFF.baseMs / 2)
    expect(nextDelay(50, () => 0.999_999)).toBe(DEFAULT_BACKOFF.maxMs)
  })
})
