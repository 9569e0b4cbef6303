import { describe, expect, it } from 'vitest'
import { createDedupWindow } from './dedup.ts'

// A clock far from zero: expiry must use the age `now - firstSeen`, not any other sum of the two.
const T0 = 1_764_000_000_000

describe('dedup window expiry, injected clock', () => {
  it('remembers a key until ttlMs - 1 after its first sighting and forgets it at exactly ttlMs', () => {
    const w = createDedupWindow({ maxEntries: 10, ttlMs: 500 })
    expect(w.seen('d', 's', 'm', T0)).toBe(false)
    expect(w.has('d', 's', 'm', T0 + 499)).toBe(true)
    expect(w.seen('d', 's', 'm', T0 + 499)).toBe(true)
    expect(w.has('d', 's', 'm', T0 + 500)).toBe(false)
    expect(w.size).toBe(0)
    expect(w.seen('d', 's', 'm', T0 + 500)).toBe(false)
  })

  it('expires only the keys that reached their age, oldest first', () => {
    const w = createDedupWindow({ maxEntries: 10, ttlMs: 100 })
    w.seen('d', 's', 'a', T0)
    w.seen('d', 's', 'b', T0 + 50)
    expect(w.has('d', 's', 'a', T0 + 100)).toBe(false)
    expect(w.has('d', 's', 'b', T0 + 100)).toBe(true)
    expect(w.size).toBe(1)
    expect(w.has('d', 's', 'b', T0 + 150)).toBe(false)
  })
})
