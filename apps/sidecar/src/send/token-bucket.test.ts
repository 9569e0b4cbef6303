import { describe, expect, it } from 'vitest'
import { INBOUND_BYTES, UPLOADS } from './outbound.ts'
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

  it("counted in bytes (Signal's inbound budget): a burst of 128 MiB, then 2,000 bytes a second", () => {
    const MiB = 1024 * 1024
    const b = createTokenBucket({ ratePerSecond: 2000, burst: 128 * MiB, now: 0 })
    // A 10 MB join fits the burst at once, and so does the rest of it.
    expect(b.tryTake(0, 10_000_000)).toBe(true)
    expect(b.tryTake(0, 128 * MiB - 10_000_000)).toBe(true)
    expect(b.tryTake(0, 1)).toBe(false)
    // Empty, a 4,000-byte body waits two seconds.
    expect(b.waitMs(0, 4000)).toBe(2000)
    expect(b.tryTake(1999, 4000)).toBe(false)
    expect(b.tryTake(2000, 4000)).toBe(true)
  })

  it('lets a take larger than the bucket go once the bucket is full, in debt afterwards', () => {
    const b = createTokenBucket({ ratePerSecond: 10, burst: 100, now: 0 })
    expect(b.tryTake(0, 50)).toBe(true)
    expect(b.waitMs(0, 500)).toBe(5000)
    expect(b.tryTake(5000, 500)).toBe(true)
    // 400 tokens of debt: one token needs 40.1 s.
    expect(b.waitMs(5000, 1)).toBe(40_100)
  })

  it('counts a slow take from when it landed: the refill earned in flight is taken back, at most the take', () => {
    const b = createTokenBucket({ ratePerSecond: 1000, burst: 1000, now: 0 })
    expect(b.tryTake(0, 1000)).toBe(true)
    // Signal counted these 1,000 bytes when the send arrived, 500 ms later.
    b.countFrom(500, 0, 1000)
    expect(b.waitMs(500, 1000)).toBe(1000)
    // Never more than the take itself: a send that took an hour owes its bytes, not an hour's refill.
    const c = createTokenBucket({ ratePerSecond: 1000, burst: 1000, now: 0 })
    c.tryTake(0, 100)
    c.countFrom(3_600_000, 0, 100)
    expect(c.waitMs(3_600_000, 900)).toBe(0)
    expect(c.waitMs(3_600_000, 901)).toBe(1)
  })

  it("with the sidecar's budget, a 10 MB join and then an hour of 2,000-byte bodies at one a second never wait", () => {
    const b = createTokenBucket({ ...INBOUND_BYTES, now: 0 })
    expect(b.tryTake(0, 10_000_000)).toBe(true)
    // One send a second (the default pace) of the largest body without long bodies (2,000 bytes):
    // 7.2 MB in the hour, what the budget refills in it.
    let waited = 0
    for (let second = 1; second <= 3600; second++) if (!b.tryTake(second * 1000, 2000)) waited++
    expect(waited).toBe(0)
  })

  it("with the sidecar's upload budget, a join is one of 50 uploads, and an hour of attachment sends at one a second gets 50 plus one per 1.2 s", () => {
    const u = createTokenBucket({ ...UPLOADS, now: 0 })
    expect(u.tryTake(0)).toBe(true)
    let uploads = 1
    // Every send of the hour an attachment (the worst case): those the bucket refuses go as text.
    for (let second = 1; second <= 3600; second++) if (u.tryTake(second * 1000)) uploads++
    // Signal's limit over the same hour: 50 at once plus 3,000 refilled (one per 1.2 s).
    expect(uploads).toBeLessThanOrEqual(50 + 3600 / 1.2)
    expect(uploads).toBeGreaterThanOrEqual(50 + 3600 / 1.2 - 1)
  })
})
