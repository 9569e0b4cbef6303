import { describe, expect, test } from 'vitest'
import { DeliveryTracker, NO_DELIVERY, weakestState } from './delivery-status.ts'

describe('delivery status', () => {
  test('the weakest state: browser while anything is pending, then sidecar while Signal has not taken all', () => {
    expect(weakestState(1, { ...NO_DELIVERY, unsent: 3 })).toBe('browser')
    expect(weakestState(0, { ...NO_DELIVERY, unsent: 1 })).toBe('sidecar')
    expect(weakestState(0, NO_DELIVERY)).toBe('group')
  })

  test("a note sets Signal's state; refusals count until a note says Signal took something", () => {
    const tracker = new DeliveryTracker()
    expect(tracker.status).toEqual(NO_DELIVERY)
    tracker.onRefused('untrusted identity')
    tracker.onRefused('untrusted identity')
    expect(tracker.status).toEqual({ ...NO_DELIVERY, signal: 'refused', reason: 'untrusted identity', refused: 2 })
    expect(tracker.onNote({ signal: 'refused', since: 5, unsent: 1, sent: ['a'], reason: 'again' })).toEqual(['a'])
    expect(tracker.status).toEqual({
      signal: 'refused',
      since: 5,
      unsent: 1,
      reason: 'again',
      refused: 2,
      role: 'editor',
    })
    tracker.onNote({ signal: 'refused', since: 5, unsent: 1, sent: [] })
    expect(tracker.status.reason).toBeNull()
    tracker.onNote({ signal: 'unreachable', since: 9, unsent: 2, sent: [], reason: 'ignored' })
    expect(tracker.status).toEqual({
      signal: 'unreachable',
      since: 9,
      unsent: 2,
      reason: null,
      refused: 2,
      role: 'editor',
    })
    tracker.onNote({ signal: 'reachable', since: null, unsent: 0, sent: ['b'] })
    expect(tracker.status).toEqual({
      signal: 'reachable',
      since: null,
      unsent: 0,
      reason: null,
      refused: 0,
      role: 'editor',
    })
  })
})
