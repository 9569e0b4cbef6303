import { describe, expect, it } from 'vitest'
import { nextDelay } from './backoff.ts'

describe('jittered exponential backoff', () => {
  const policy = { baseMs: 100, maxMs: 5000 }
  it('doubles the ceiling per attempt and stays within [ceiling/2, ceiling]', () => {
    expect(nextDelay(0, policy, () => 0)).toBe(50)
    expect(nextDelay(0, policy, () => 0.999999)).toBe(100)
    expect(nextDelay(3, policy, () => 0)).toBe(400)
    expect(nextDelay(3, policy, () => 0.999999)).toBe(800)
  })
  it('caps at maxMs however many attempts failed', () => {
    expect(nextDelay(10, policy, () => 0.999999)).toBe(5000)
    expect(nextDelay(10_000, policy, () => 0)).toBe(2500)
  })
  it('spreads delays with the random source', () => {
    expect(nextDelay(2, policy, () => 0.25)).not.toBe(nextDelay(2, policy, () => 0.75))
  })
})
