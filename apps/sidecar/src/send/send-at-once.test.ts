/**
 * The send queue's rule for a person's edits (decisions/0035): an edit goes to the daemon at once
 * when the queue holds a send slot (a token, and the interval since the last send of new
 * envelopes passed); it is coalesced with others only while the queue waits for the next slot.
 * Virtual time throughout: counts, never timings.
 */
import { describe, expect, it } from 'vitest'
import { createSendQueue, type QueuedEnvelope } from './queue.ts'
import { envelopeFrame, idsIn, manualClock, queueOptions } from './send-fixture.ts'
import { createTokenBucket } from './token-bucket.ts'

/** The sidecar's defaults: 1 send per second, burst 5, one send of new envelopes per interval. */
function defaultPacedQueue() {
  const clock = manualClock()
  const bodies: { at: number; body: string }[] = []
  const backend = {
    sendGroupMessage: async (_group: string, body: string) => (
      bodies.push({ at: clock.now(), body }),
      { timestamp: bodies.length, results: [] }
    ),
  }
  const queue = createSendQueue(
    queueOptions(clock, backend, {
      bucket: createTokenBucket({ ratePerSecond: 1, burst: 5, now: 0 }),
      minIntervalMs: 1000,
    }),
  )
  return { clock, bodies, queue }
}

const keystroke = (): QueuedEnvelope => ({
  ...envelopeFrame(new Uint8Array(24)),
  owner: { ack: () => undefined, reject: () => undefined },
})

describe('send queue: at once with a slot, coalesced only while waiting', () => {
  it('hands an edit to the daemon without any coalescing wait when a slot is there', async () => {
    const { clock, bodies, queue } = defaultPacedQueue()
    await clock.advance(5000) // an idle document: full bucket, no recent send
    const edit = keystroke()
    queue.enqueue(edit)
    await clock.advance(0) // no virtual time passes
    expect(bodies.map((b) => idsIn(b.body))).toEqual([[edit.messageId]])
    expect(bodies[0]?.at).toBe(5000)
    // Again after a quiet interval: the next lone edit goes at once too.
    await clock.advance(1500)
    const next = keystroke()
    queue.enqueue(next)
    await clock.advance(0)
    expect(bodies.map((b) => idsIn(b.body))).toEqual([[edit.messageId], [next.messageId]])
    queue.close()
  })

  it('coalesces the edits made while it waits for the next slot into one send', async () => {
    const { clock, bodies, queue } = defaultPacedQueue()
    const first = keystroke()
    queue.enqueue(first)
    await clock.advance(0)
    const waiting = Array.from({ length: 7 }, keystroke)
    for (const edit of waiting) {
      await clock.advance(120)
      queue.enqueue(edit)
    }
    await clock.advance(1000)
    expect(bodies.map((b) => idsIn(b.body))).toEqual([[first.messageId], waiting.map((e) => e.messageId)])
    queue.close()
  })

  it('sends at most one send of edits per second under a minute of continuous typing', async () => {
    const { clock, bodies, queue } = defaultPacedQueue()
    await clock.advance(10_000) // start from an idle, full bucket: the burst must not be spent on typing
    // Seven keystrokes a second (a page's flush every 140 ms), for 60 s.
    for (let t = 0; t < 60_000; t += 140) {
      queue.enqueue(keystroke())
      await clock.advance(140)
    }
    await clock.advance(2000)
    const inFirstMinute = bodies.filter((b) => b.at < 10_000 + 60_000)
    expect(inFirstMinute).toHaveLength(60)
    for (let i = 1; i < bodies.length; i++)
      expect((bodies[i]?.at ?? 0) - (bodies[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(1000)
    queue.close()
  })
})
