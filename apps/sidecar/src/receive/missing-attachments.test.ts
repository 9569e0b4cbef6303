import { describe, expect, it } from 'vitest'
import { createMissingAttachments } from './missing-attachments.ts'

/** Manual timers: `advance` runs what is due. */
function manualTimers() {
  let now = 0
  const due = new Map<number, { at: number; fn: () => void }>()
  let next = 0
  return {
    now: () => now,
    setTimeout: (fn: () => void, ms: number) => {
      due.set(++next, { at: now + ms, fn })
      return next
    },
    clearTimeout: (h: unknown) => void due.delete(h as number),
    advance(ms: number) {
      now += ms
      for (const [h, t] of due) {
        if (t.at > now) continue
        due.delete(h)
        t.fn()
      }
    },
  }
}

function tracker(maxEntries = 100) {
  const timers = manualTimers()
  const log: string[] = []
  const m = createMissingAttachments({
    inARow: 3,
    restoreAfterMs: 1000,
    maxEntries,
    timers,
    withdraw: (d) => void log.push(`withdraw ${d}`),
    restore: (d) => void log.push(`restore ${d}`),
  })
  return { m, timers, log }
}

describe('missing attachments, per document and per member', () => {
  it('withdraws only the document where one member missed three in a row, once', () => {
    const { m, log } = tracker()
    for (let i = 0; i < 5; i++) m.missed('x', 'c')
    m.missed('y', 'c')
    expect(log).toEqual(['withdraw x'])
    expect([...m.withdrawn]).toEqual(['x'])
  })

  it('counts each member apart: misses spread over members do not add up', () => {
    const { m, log } = tracker()
    for (const source of ['a', 'b', 'a', 'b']) m.missed('x', source)
    expect(log).toEqual([])
  })

  it('a fetched attachment resets that member and restores a withdrawn document at once', () => {
    const { m, log } = tracker()
    m.missed('x', 'c')
    m.missed('x', 'c')
    m.fetched('x', 'c')
    m.missed('x', 'c')
    expect(log).toEqual([])
    m.missed('x', 'c')
    m.missed('x', 'c')
    m.fetched('x', 'b')
    expect(log).toEqual(['withdraw x', 'restore x'])
  })

  it('announces again on its own after the restore delay, with the counts of that document cleared', () => {
    const { m, timers, log } = tracker()
    for (let i = 0; i < 3; i++) m.missed('x', 'c')
    timers.advance(999)
    expect(log).toEqual(['withdraw x'])
    timers.advance(1)
    expect(log).toEqual(['withdraw x', 'restore x'])
    m.missed('x', 'c')
    expect(log).toHaveLength(2)
  })

  it('keeps at most maxEntries counts, forgetting the least recently touched', () => {
    const { m, log } = tracker(2)
    m.missed('x', 'a')
    m.missed('x', 'a')
    m.missed('x', 'b')
    m.missed('x', 'c') // forgets a
    expect(m.entries).toBe(2)
    m.missed('x', 'a')
    m.missed('x', 'a')
    expect(log).toEqual([])
  })

  it('dispose cancels the pending restore', () => {
    const { m, timers, log } = tracker()
    for (let i = 0; i < 3; i++) m.missed('x', 'c')
    m.dispose()
    timers.advance(5000)
    expect(log).toEqual(['withdraw x'])
  })
})
