import { decodeHealth, encodeHealth, PROTOCOL_VERSION } from '@e2e-col/protocol'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createCapabilityExchange } from './capability-exchange.ts'

const hello = encodeHealth({ capabilities: { envelopeVersion: PROTOCOL_VERSION, features: 3 }, hello: true })
const C = { uuid: 'c' }
const D = { uuid: 'd' }

function exchange(authors?: () => readonly number[]) {
  const sent: Uint8Array[] = []
  const x = createCapabilityExchange({
    ...(authors === undefined ? {} : { authors }),
    self: { uuid: 'self' },
    features: 3,
    send: (p) => void sent.push(p),
    answerDelayMs: { min: 200, max: 200 },
    helloGapMs: 60_000,
    now: () => Date.now(),
    random: () => 0,
  })
  return { x, sent }
}

describe("answers to a member's hellos", () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it('answers one hello per member per gap; the later hellos in the gap get one answer when it ends', () => {
    const { x, sent } = exchange()
    x.onHealth(C, hello)
    vi.advanceTimersByTime(200)
    expect(sent).toHaveLength(1)
    for (let i = 0; i < 19; i++) {
      x.onHealth(C, hello)
      vi.advanceTimersByTime(1700)
    }
    expect(sent).toHaveLength(1)
    vi.advanceTimersByTime(60_000)
    expect(sent).toHaveLength(2)
    x.dispose()
  })

  it("another member's hello is answered promptly, even while C's deferred answer waits", () => {
    const { x, sent } = exchange()
    x.onHealth(C, hello)
    vi.advanceTimersByTime(200)
    x.onHealth(C, hello) // deferred to the end of C's gap
    vi.advanceTimersByTime(1000)
    x.onHealth(D, hello)
    vi.advanceTimersByTime(200)
    expect(sent).toHaveLength(2)
    x.dispose()
  })
})

describe("the account's client ids in its announcements", () => {
  it('names the newest 64 beside the capabilities and every older one after, 64 an announcement', () => {
    const ids = Array.from({ length: 150 }, (_, i) => 2 ** 32 + i)
    const { x, sent } = exchange(() => ids)
    x.hello()
    const payloads = sent.map((p) => decodeHealth(p))
    expect(payloads[0]?.capabilities).toBeDefined()
    expect(payloads[0]?.authors).toEqual(ids.slice(-64))
    expect(payloads.slice(1).map((h) => [h.capabilities, h.authors])).toEqual([
      [undefined, ids.slice(0, 64)],
      [undefined, ids.slice(64, 86)],
    ])
    x.dispose()
  })
})
