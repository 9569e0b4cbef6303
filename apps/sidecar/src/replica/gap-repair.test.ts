import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import { createClaimants, type Claimants } from './claims.ts'
import { createGapRepair } from './gap-repair.ts'

const SECOND = 1000
const MINUTE = 60 * SECOND

function repair(doc: Y.Doc, quietMs = 1e9, claimants?: Claimants) {
  let asks = 0
  const g = createGapRepair({
    doc,
    ask: () => void (asks += 1),
    announce: () => undefined,
    intervalMs: SECOND,
    maxIntervalMs: MINUTE,
    maxClaimSpacingMs: 10 * MINUTE,
    // Quiet asks are not what most cases count.
    quietMs,
    announceMs: 1e9,
    targetTtlMs: 10 * MINUTE,
    now: () => Date.now(),
    random: () => 0,
    claimants,
  })
  return { g, asks: () => asks }
}

const stateOf = (doc: Y.Doc) => Y.decodeStateVector(Y.encodeStateVector(doc))

/** A state vector claiming `clock` clocks of `client`. */
const claim = (client: number, clock: number) => new Map([[client, clock]])

/** One character from a fresh client, applied to `doc` (progress, but not on any claim). */
function unrelatedEdit(doc: Y.Doc): void {
  const other = new Y.Doc()
  other.getText('t').insert(0, 'x')
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(other))
}

/** A writer under `clientId`; `type` appends and answers the update that made. */
function writer(clientId: number) {
  const doc = Object.assign(new Y.Doc(), { clientID: clientId })
  const text = doc.getText('t')
  return {
    doc,
    type(s: string): Uint8Array {
      const before = Y.encodeStateVector(doc)
      text.insert(text.length, s)
      return Y.encodeStateAsUpdate(doc, before)
    },
  }
}

describe('gap repair: what claims cost, per member', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it("asks for a claim kept from the document's last stay in memory when it comes due, with nothing new heard", () => {
    const claimants = createClaimants()
    const before = repair(new Y.Doc(), 1e9, claimants)
    before.g.onPeerState(claim(7, 3), 'member')
    before.g.dispose() // taken out of memory before the claim came due
    expect(before.asks()).toBe(0)
    // Loaded again over the same store state: nothing arrives, the kept claim still comes due.
    const after = repair(new Y.Doc(), 1e9, claimants)
    vi.advanceTimersByTime(2 * SECOND)
    expect(after.asks()).toBe(1)
    after.g.dispose()
  })

  it('false claims naming a new client each time, with real edits, cost one ask in the first minute', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    let ghost = 0x5eed
    for (let t = 0; t < 30 * SECOND; t += 400) {
      unrelatedEdit(doc)
      g.onPeerState(claim(ghost++, 1000), 'c')
      g.check()
      vi.advanceTimersByTime(400)
    }
    // One interval after the first claim; before, each new client id kept the replica asking.
    expect(asks()).toBe(1)
    g.dispose()
  })

  it('each claim shown false doubles the spacing: asks at 1, 61, 181, 421 s over ten minutes', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    let ghost = 0x5eed
    const at: number[] = []
    const start = Date.now()
    for (let t = 0; t < 10 * MINUTE; t += 5 * SECOND) {
      g.onPeerState(claim(ghost++, 1000), 'c')
      for (let s = 0; s < 5; s++) {
        const before = asks()
        vi.advanceTimersByTime(SECOND)
        if (asks() > before) at.push((Date.now() - start) / SECOND)
      }
    }
    expect(at).toEqual([1, 61, 181, 421])
    expect(g.claimSpacingOf('c')).toBe(8 * MINUTE)
    g.dispose()
  })

  it('a claim repair confirms keeps the spacing at one minute, and is asked for in the first round', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    const a = writer(0xa11ce)
    const first = a.type('abc')
    g.onPeerState(claim(0xa11ce, 3), 'a')
    vi.advanceTimersByTime(SECOND)
    expect(asks()).toBe(1)
    // The answer brings it: nothing more is asked.
    Y.applyUpdate(doc, first)
    g.check()
    vi.advanceTimersByTime(20 * SECOND)
    expect(asks()).toBe(1)
    // A later claim of the same member waits for the minute's end; the confirmed one is judged then.
    a.type('def')
    g.onPeerState(claim(0xa11ce, 6), 'a')
    vi.advanceTimersByTime(39 * SECOND)
    expect(asks()).toBe(1)
    vi.advanceTimersByTime(2 * SECOND)
    expect(asks()).toBe(2)
    expect(g.claimSpacingOf('a')).toBe(MINUTE)
    g.dispose()
  })

  it("one member's false claims do not hold back another member's", () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    g.onPeerState(claim(0x5eed, 1000), 'c')
    vi.advanceTimersByTime(SECOND)
    expect(asks()).toBe(1)
    vi.advanceTimersByTime(10 * SECOND)
    g.onPeerState(claim(0x5eed + 1, 1000), 'c')
    g.onPeerState(claim(0xb0b, 2), 'b')
    vi.advanceTimersByTime(SECOND)
    expect(asks()).toBe(2)
    g.dispose()
  })

  it('asks back at once for a member within its budget, and declines one over it', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    g.onPeerState(claim(0x5eed, 1000), 'c')
    expect(g.askBack()).toBe(true)
    expect(asks()).toBe(1)
    g.onPeerState(claim(0x5eed + 1, 1000), 'c')
    expect(g.askBack()).toBe(false)
    vi.advanceTimersByTime(30 * SECOND)
    expect(asks()).toBe(1)
    // Another member's request ahead is asked back at once.
    g.onPeerState(claim(0xb0b, 2), 'b')
    expect(g.askBack()).toBe(true)
    expect(asks()).toBe(2)
    // A member lacking nothing: nothing to ask back.
    expect(g.askBack()).toBe(false)
    g.dispose()
  })
})

describe('gap repair: content lost on the way (an attachment)', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it("a member's broken attachment every interval costs one ask a minute; another member's loss is still asked about", () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    for (let t = 0; t < MINUTE - 2 * SECOND; t += 1500) {
      g.lost('carol')
      vi.advanceTimersByTime(1500)
    }
    // Before: one ask per loss (39).
    expect(asks()).toBe(1)
    g.lost('bob')
    vi.advanceTimersByTime(SECOND)
    expect(asks()).toBe(2)
    vi.advanceTimersByTime(2 * SECOND)
    g.lost('carol')
    vi.advanceTimersByTime(SECOND)
    expect(asks()).toBe(3)
    g.dispose()
  })
})

describe('gap repair: a request Signal refused', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it('is asked again one interval later, backing off while refusals continue', () => {
    const { g, asks } = repair(new Y.Doc())
    const waits: number[] = []
    for (let i = 0; i < 8; i++) {
      g.refused()
      const before = asks()
      let waited = 0
      while (asks() === before) {
        vi.advanceTimersByTime(SECOND)
        waited += 1
      }
      waits.push(waited)
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60])
    // A lone refusal long after: asked again one interval later.
    vi.advanceTimersByTime(3 * MINUTE)
    g.refused()
    vi.advanceTimersByTime(SECOND)
    expect(asks()).toBe(9)
    g.dispose()
  })
})

/** Gaps on `n` clients: each one's second update applied, its first held back. */
function gaps(doc: Y.Doc, n: number): Uint8Array[] {
  const held: Uint8Array[] = []
  for (let i = 0; i < n; i++) {
    const w = writer(0x1000 + i)
    held.push(w.type('a'))
    Y.applyUpdate(doc, w.type('b'))
  }
  return held
}

describe('gap repair: a gap (pending structs)', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it('unrelated edits do not reset the doubling delay', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    gaps(doc, 1)
    for (let t = 0; t < 12 * SECOND; t += 400) {
      unrelatedEdit(doc)
      g.check()
      vi.advanceTimersByTime(400)
    }
    // Asks at 1, 2, 4, 8 s.
    expect(asks()).toBe(4)
    g.dispose()
  })

  it("a member dripping its gap's missing pieces one an interval does not keep the replica asking every interval", () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    // A member's struct far ahead of its own clock, then the missing pieces one a second (#43).
    const c = writer(0xc0ffee)
    const pieces = Array.from({ length: 60 }, () => c.type('x'))
    Y.applyUpdate(doc, c.type('ahead'))
    g.check()
    for (const piece of pieces) {
      vi.advanceTimersByTime(SECOND)
      Y.applyUpdate(doc, piece)
      g.check()
    }
    // Before: asked every interval while it lasted (60). Now the doubling delay: 1, 2, 4, 8, 16, 32 s.
    expect(asks()).toBeLessThanOrEqual(6)
    g.dispose()
  })

  it('a member closing its gap and opening the next one each interval is asked about at the doubled delay', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    const c = writer(0xc0ffee)
    for (let t = 0; t < MINUTE; t += 1500) {
      // The piece that closes the last gap, and one past the next missing piece.
      const [fill, skipped, ahead] = [c.type('a'), c.type('b'), c.type('c')]
      Y.applyUpdate(doc, fill)
      Y.applyUpdate(doc, ahead)
      g.check()
      vi.advanceTimersByTime(1500)
      Y.applyUpdate(doc, skipped)
      g.check()
    }
    // Before: one ask per gap (40). Now 1, 2, 4, 8, 16, 32 s apart at most.
    expect(asks()).toBeLessThanOrEqual(6)
    g.dispose()
  })

  it('a gap seen a minute after the last gap ask is asked about one interval later, and filled stops the asking', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc)
    const [first] = gaps(doc, 1)
    g.check()
    vi.advanceTimersByTime(7 * SECOND)
    // Asks at 1, 2 and 4 s (the next would be at 8).
    expect(asks()).toBe(3)
    Y.applyUpdate(doc, first as Uint8Array)
    g.check()
    vi.advanceTimersByTime(MINUTE)
    expect(asks()).toBe(3)
    const other = writer(0x2000)
    const second = other.type('a')
    Y.applyUpdate(doc, other.type('b'))
    g.check()
    vi.advanceTimersByTime(SECOND)
    expect(asks()).toBe(4)
    Y.applyUpdate(doc, second)
    g.check()
    vi.advanceTimersByTime(MINUTE)
    expect(asks()).toBe(4)
    g.dispose()
  })
})

describe('gap repair: the quiet ask after a burst, in a group where every member saw it', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())
  const QUIET = 10 * SECOND

  it("a member's request holding nothing this replica lacks takes the place of its own quiet ask", () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc, QUIET)
    unrelatedEdit(doc)
    vi.advanceTimersByTime(QUIET / 2)
    g.onPeerAsk(stateOf(doc)) // the first member to ask, holding what this replica holds
    vi.advanceTimersByTime(3 * QUIET)
    expect(asks()).toBe(0)
    expect(g.quietAsksCovered).toBe(1)
    g.dispose()
  })

  it('a request from a member ahead of this replica does not: its answers would not carry what this replica lacks', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc, QUIET)
    unrelatedEdit(doc)
    g.onPeerAsk(new Map([...stateOf(doc), [424242, 3]]))
    vi.advanceTimersByTime(3 * QUIET)
    expect(asks()).toBe(1)
    expect(g.quietAsksCovered).toBe(0)
    g.dispose()
  })

  it('a change after the request that stood in is asked about once quiet again', () => {
    const doc = new Y.Doc()
    const { g, asks } = repair(doc, QUIET)
    unrelatedEdit(doc)
    g.onPeerAsk(stateOf(doc))
    vi.advanceTimersByTime(SECOND)
    unrelatedEdit(doc)
    vi.advanceTimersByTime(3 * QUIET)
    expect(asks()).toBe(1)
    g.dispose()
  })
})
