import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import { createGapRepair } from './gap-repair.ts'

function repair(doc: Y.Doc) {
  let asks = 0
  const g = createGapRepair({
    doc,
    ask: () => void (asks += 1),
    announce: () => undefined,
    intervalMs: 1000,
    maxIntervalMs: 60_000,
    quietMs: 600_000,
    announceMs: 600_000,
    targetTtlMs: 600_000,
    now: () => Date.now(),
    random: () => 0,
  })
  return { g, asks: () => asks }
}

/** A state vector claiming `clock` clocks of `client`. */
const claim = (client: number, clock: number) => new Map([[client, clock]])

/** One character from a fresh client, applied to `doc` (progress, but not on the claim). */
function unrelatedEdit(doc: Y.Doc): void {
  const other = new Y.Doc()
  other.getText('t').insert(0, 'x')
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(other))
}

describe('gap repair backoff', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it('unrelated edits arriving with a false claim do not reset the doubling delay', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    for (let t = 0; t < 12_000; t += 400) {
      unrelatedEdit(doc)
      g.onPeerState(claim(0x5eed, 1000), 'c')
      g.check()
      vi.advanceTimersByTime(400)
    }
    // Asks at 1, 2, 4, 8 s: before, every edit reset the delay and it asked about every second.
    expect(asks()).toBe(4)
    g.dispose()
  })

  it('progress on what is lacking resets the delay', () => {
    const doc = new Y.Doc()
    const source = new Y.Doc()
    source.clientID = 0x5eed
    const text = source.getText('t')
    const { g, asks } = repair(doc)
    g.onPeerState(claim(0x5eed, 12), 'b')
    for (let t = 0; t < 12_000; t += 1000) {
      // One more clock of the claimed client arrives each second.
      text.insert(text.length, 'y')
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(source, Y.encodeStateVector(doc)))
      vi.advanceTimersByTime(1000)
    }
    // Still behind (12 claimed, about 12 delivered at the end), asked every interval meanwhile.
    expect(asks()).toBeGreaterThanOrEqual(10)
    g.dispose()
  })
})
