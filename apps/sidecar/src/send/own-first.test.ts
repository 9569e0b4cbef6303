import { describe, expect, it } from 'vitest'
import { createSendQueue, type QueuedEnvelope, type SendOwner } from './queue.ts'
import { envelopeFrame, idsIn, manualClock, queueOptions } from './send-fixture.ts'
import { createTokenBucket } from './token-bucket.ts'

const acking = (acked: string[]): SendOwner => ({ ack: (id) => void acked.push(id), reject: () => undefined })

/** A queue at one send a second (burst 1), as a person's sidecar by default. */
function setup() {
  const clock = manualClock()
  const bodies: string[] = []
  const sentAt: number[] = []
  const backend = {
    sendGroupMessage: async (_group: string, body: string) => {
      bodies.push(body)
      sentAt.push(clock.now())
      return { timestamp: bodies.length, results: [] }
    },
  }
  const acked: string[] = []
  const queue = createSendQueue(
    queueOptions(clock, backend, { bucket: createTokenBucket({ ratePerSecond: 1, burst: 1, now: 0 }) }),
  )
  return { clock, bodies, sentAt, acked, queue }
}

const replica = {}
const page = {}
/** The replica's whole-document answer: 20 KB, about 15 chunk bodies of 2 000 bytes. */
const answer = (acked: string[]): QueuedEnvelope => ({
  ...envelopeFrame(new Uint8Array(20_000).fill(7), { kind: 'sync-response' }),
  owner: acking(acked),
  source: replica,
})
const ownChange = (acked: string[]): QueuedEnvelope => ({
  ...envelopeFrame(new Uint8Array(30)),
  owner: acking(acked),
  source: page,
  first: true,
})

describe("a person's own changes go first", () => {
  it("an own change waits for one body of the replica's chunked answer, not for all of them", async () => {
    const { clock, bodies, sentAt, acked, queue } = setup()
    const big = answer(acked)
    queue.enqueue(big)
    await clock.advance(0)
    expect(bodies).toHaveLength(1) // the answer's first chunk
    const mine = ownChange(acked)
    queue.enqueue(mine)
    await clock.advance(1000)
    // The very next send is the person's change (before: after the other ~14 chunks, ~14 s).
    expect(idsIn(bodies[1]!)).toEqual([mine.messageId])
    expect(acked).toEqual([mine.messageId])
    await clock.advance(30_000)
    expect(acked).toEqual([mine.messageId, big.messageId])
    expect(bodies.filter((b) => idsIn(b)[0] === big.messageId).length).toBeGreaterThan(10)
    expect(sentAt[1]! - sentAt[0]!).toBeLessThanOrEqual(1000)
    queue.close()
  })

  it('own changes take at most every other body while the answer goes: the answer keeps half the budget', async () => {
    const { clock, bodies, acked, queue } = setup()
    const big = answer(acked)
    queue.enqueue(big)
    await clock.advance(0)
    const mine = Array.from({ length: 6 }, () => ownChange(acked))
    for (const m of mine) queue.enqueue(m)
    await clock.advance(12_000)
    const who = bodies.slice(0, 13).map((b) => (idsIn(b)[0] === big.messageId ? 'answer' : 'own'))
    // Strict alternation from the first chunk on: never two own bodies in a row.
    expect(who).toEqual(Array.from({ length: 13 }, (_, i) => (i % 2 === 0 ? 'answer' : 'own')))
    queue.close()
  })

  it("a long send of one's own is not interrupted by the next own change", async () => {
    const { clock, bodies, queue } = setup()
    const acked: string[] = []
    const longOwn: QueuedEnvelope = { ...answer(acked), source: page, first: true }
    queue.enqueue(longOwn)
    await clock.advance(0)
    const next = ownChange(acked)
    queue.enqueue(next)
    await clock.advance(30_000)
    const ids = bodies.map((b) => idsIn(b)[0])
    expect(ids.at(-1)).toBe(next.messageId)
    expect(ids.slice(0, -1).every((id) => id === longOwn.messageId)).toBe(true)
    queue.close()
  })
})
