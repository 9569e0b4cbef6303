import { describe, expect, it } from 'vitest'
import { createTokenBucket } from './token-bucket.ts'

describe('token bucket pacing', () => {
  it('allows a burst, then one send per period', () => {
    const b = createTokenBucket({ ratePerSecond: 1, burst: 5, now: 0 })
    for (let i = 0; i < 5; i++) expect(b.tryTake(0)).toBe(true)
    expect(b.tryTake(0)).toBe(false)
    expect(b.waitMs(0)).toBe(1000)
    expect(b.tryTake(999)).toBe(false)
    expect(b.tryTake(1000)).toBe(true)
    expect(b.waitMs(1000)).toBe(1000)
  })

  it('never stores more than the burst however long it idles', () => {
    const b = createTokenBucket({ ratePerSecond: 10, burst: 3, now: 0 })
    let taken = 0
    while (b.tryTake(1_000_000)) taken++
    expect(taken).toBe(3)
  })

  it('holds every send until a rate-limit pause has passed, then resumes at the sustained pace', () => {
    const b = createTokenBucket({ ratePerSecond: 1, burst: 5, now: 0 })
    b.pauseUntil(30_000)
    expect(b.waitMs(0)).toBe(30_000)
    expect(b.tryTake(29_999)).toBe(false)
    expect(b.tryTake(30_000)).toBe(true)
    expect(b.tryTake(30_000)).toBe(false)
  })

  it('does not shorten a pause with a shorter one', () => {
    const b = createTokenBucket({ ratePerSecond: 1, burst: 1, now: 0 })
    b.pauseUntil(10_000)
    b.pauseUntil(5_000)
    expect(b.waitMs(0)).toBe(10_000)
  })
})

describe('token bucket pauses', () => {
  it('ignores a repeated pause that has passed: the burst earned since stays', () => {
    const b = createTokenBucket({ ratePerSecond: 1, burst: 5, now: 0 })
    b.pauseUntil(10_000)
    expect(b.waitMs(20_000)).toBe(0) // refilled to the burst by now
    b.pauseUntil(10_000)
    let taken = 0
    while (b.tryTake(20_000)) taken++
    expect(taken).toBe(5)
  })
})
