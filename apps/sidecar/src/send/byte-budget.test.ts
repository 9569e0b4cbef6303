/**
 * Signal's inbound byte budget (docs/sidecar.md §4.5): every body waits until its bytes fit the
 * account's budget. On virtual time with a recording backend; through the toy in
 * test/byte-budget.test.ts.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createSendQueue, type SendOwner } from './queue.ts'
import { envelopeFrame, manualClock, queueOptions } from './send-fixture.ts'
import { sendBytes } from './sender.ts'
import { createTokenBucket } from './token-bucket.ts'

/** Acknowledgements land in `acked`; a refusal fails the test. */
const owner = (acked: string[]): SendOwner => ({
  ack: (id) => void acked.push(id),
  reject: (id, code, message) => {
    throw new Error(`${id} rejected: ${code} ${message}`)
  },
})

describe("Signal's inbound byte budget", () => {
  it('counts a body in UTF-8 bytes and an attachment in its decoded bytes', () => {
    expect(sendBytes('héllo')).toBe(6)
    expect(sendBytes('ab', ['data:application/octet-stream;base64,AAAAAAAA'])).toBe(2 + 6)
  })

  it('holds the bodies past the budget until it refills, then sends them all', async () => {
    const clock = manualClock()
    const bodies: string[] = []
    const backend = {
      sendGroupMessage: async (_group: string, body: string) => (bodies.push(body), { timestamp: 1, results: [] }),
    }
    const acked: string[] = []
    const queue = createSendQueue(
      queueOptions(clock, backend, {
        maxBodyBytes: 3000,
        // The byte budget is the only limit here: 6,000 bytes at once, then 1,000 a second.
        inboundBytes: createTokenBucket({ ratePerSecond: 1000, burst: 6000, now: 0 }),
      }),
    )
    const items = Array.from({ length: 6 }, () => ({ ...envelopeFrame(randomBytes(2000)), owner: owner(acked) }))
    for (const i of items) queue.enqueue(i)
    await clock.advance(0)
    const first = bodies.length
    const sentBytes = bodies.reduce((n, b) => n + sendBytes(b), 0)
    expect(first).toBeGreaterThan(0)
    expect(first).toBeLessThan(6)
    expect(sentBytes).toBeLessThanOrEqual(6000)
    await clock.advance(60_000)
    expect(acked.sort()).toEqual(items.map((i) => i.messageId).sort())
    queue.close()
  })
})
