import { describe, expect, it } from 'vitest'
import { createSignalPace } from './pace.ts'

describe('Signal pace', () => {
  it('grants a full bucket at once, then one permit per period, per sender and destination', () => {
    const pace = createSignalPace()
    for (let i = 0; i < 60; i += 1) expect(pace.message('+1', '+2', 0).ok).toBe(true)
    expect(pace.message('+1', '+2', 0)).toEqual({ ok: false, retryAfterSeconds: 1 })
    // Other pairs have their own buckets.
    expect(pace.message('+1', '+3', 0).ok).toBe(true)
    expect(pace.message('+2', '+1', 0).ok).toBe(true)
    expect(pace.message('+1', '+2', 999).ok).toBe(false)
    expect(pace.message('+1', '+2', 1000).ok).toBe(true)
    expect(pace.message('+1', '+2', 1000).ok).toBe(false)
    expect(pace.refused()).toEqual({ messages: 3, attachments: 0, inboundBytes: 0 })
  })

  it('a refused request takes nothing: the wait does not grow by asking', () => {
    const pace = createSignalPace()
    for (let i = 0; i < 60; i += 1) pace.message('+1', '+2', 0)
    for (let i = 0; i < 10; i += 1) expect(pace.message('+1', '+2', 500).ok).toBe(false)
    expect(pace.message('+1', '+2', 1000).ok).toBe(true)
  })

  it('counting only, nothing is refused but what would have been is counted', () => {
    const pace = createSignalPace(undefined, false)
    for (let i = 0; i < 61; i += 1) pace.message('+1', '+2', 0)
    expect(pace.refused()).toEqual({ messages: 1, attachments: 0, inboundBytes: 0 })
    expect(pace.enforced).toBe(false)
  })

  it('attachment uploads: 50, then one per 1.2 s, with the wait in whole seconds', () => {
    const pace = createSignalPace()
    for (let i = 0; i < 50; i += 1) expect(pace.attachment('+1', 0).ok).toBe(true)
    expect(pace.attachment('+1', 0)).toEqual({ ok: false, retryAfterSeconds: 2 })
    expect(pace.attachment('+1', 1199).ok).toBe(false)
    expect(pace.attachment('+1', 1200).ok).toBe(true)
  })

  it('inbound bytes: 128 MiB per destination from anyone, then 2,000 bytes a second', () => {
    const pace = createSignalPace()
    const MiB = 1024 * 1024
    expect(pace.inboundBytes('+2', 100 * MiB, 0).ok).toBe(true)
    // Another sender's bytes to the same destination count against the same budget.
    expect(pace.inboundBytes('+2', 28 * MiB, 0).ok).toBe(true)
    expect(pace.inboundBytes('+2', 4000, 0)).toEqual({ ok: false, retryAfterSeconds: 2 })
    expect(pace.inboundBytes('+3', 4000, 0).ok).toBe(true)
    expect(pace.inboundBytes('+2', 4000, 1999).ok).toBe(false)
    expect(pace.inboundBytes('+2', 4000, 2000).ok).toBe(true)
    expect(pace.refused()).toEqual({ messages: 0, attachments: 0, inboundBytes: 2 })
  })
})
