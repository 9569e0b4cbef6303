import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { codeOf, DOC_ID, SENDER_ID } from '../test/fixtures.ts'
import { createDedupWindow } from './dedup.ts'

const id = (n: number): string => n.toString(16).padStart(32, '0')

describe('createDedupWindow', () => {
  it('reports a key as seen on its second sighting only', () => {
    const w = createDedupWindow({ maxEntries: 10, ttlMs: 1000 })
    expect(w.seen(DOC_ID, SENDER_ID, id(1), 0)).toBe(false)
    expect(w.seen(DOC_ID, SENDER_ID, id(1), 1)).toBe(true)
    expect(w.seen(DOC_ID, SENDER_ID, id(2), 1)).toBe(false)
  })

  it('keys on document, sender and message id together', () => {
    const w = createDedupWindow({ maxEntries: 10, ttlMs: 1000 })
    w.seen(DOC_ID, SENDER_ID, id(1), 0)
    expect(w.has(SENDER_ID, DOC_ID, id(1), 0)).toBe(false)
    expect(w.seen(DOC_ID, DOC_ID, id(1), 0)).toBe(false)
    expect(w.has(DOC_ID, SENDER_ID, id(1), 0)).toBe(true)
  })

  it('forgets the oldest key beyond maxEntries', () => {
    const w = createDedupWindow({ maxEntries: 3, ttlMs: 1000 })
    for (let n = 1; n <= 4; n++) w.seen(DOC_ID, SENDER_ID, id(n), 0)
    expect(w.size).toBe(3)
    expect(w.has(DOC_ID, SENDER_ID, id(1), 0)).toBe(false)
    expect(w.has(DOC_ID, SENDER_ID, id(4), 0)).toBe(true)
  })

  it('forgets a key ttlMs after its first sighting, even if seen again meanwhile', () => {
    const w = createDedupWindow({ maxEntries: 10, ttlMs: 100 })
    w.seen(DOC_ID, SENDER_ID, id(1), 0)
    expect(w.seen(DOC_ID, SENDER_ID, id(1), 99)).toBe(true)
    expect(w.has(DOC_ID, SENDER_ID, id(1), 100)).toBe(false)
    expect(w.size).toBe(0)
  })

  it('is idempotent and never exceeds its bound for any sequence of keys', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20), { maxLength: 200 }), (keys) => {
        const w = createDedupWindow({ maxEntries: 8, ttlMs: 1_000_000 })
        const model: number[] = []
        keys.forEach((k, t) => {
          expect(w.seen(DOC_ID, SENDER_ID, id(k), t)).toBe(model.includes(k))
          if (!model.includes(k)) model.push(k)
          if (model.length > 8) model.shift()
          expect(w.size).toBe(model.length)
        })
      }),
    )
  })

  it('PROTO_INVALID_OPTION for bounds that are not positive integers', () => {
    expect(codeOf(() => createDedupWindow({ maxEntries: 0, ttlMs: 1 }))).toBe('ProtocolError:PROTO_INVALID_OPTION')
    expect(codeOf(() => createDedupWindow({ maxEntries: 1, ttlMs: Number.POSITIVE_INFINITY }))).toBe(
      'ProtocolError:PROTO_INVALID_OPTION',
    )
  })
})
