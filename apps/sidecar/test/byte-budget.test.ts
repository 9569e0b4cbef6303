/**
 * Signal's inbound byte budget through the toy (docs/sidecar.md §4.5): one account's send queue
 * paced by bytes delivers a join larger than a shrunk budget with nothing refused; unpaced by
 * bytes, the same join would have been refused.
 */
import { randomBytes } from 'node:crypto'
import { createHttpSignalBackend } from '@e2e-col/signal-cli'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { afterEach, describe, expect, it } from 'vitest'
import { systemClock } from '../src/clock.ts'
import { createSendQueue, type SendOwner } from '../src/send/queue.ts'
import { envelopeFrame, manualClock, queueOptions, reachOn } from '../src/send/send-fixture.ts'
import { createTokenBucket } from '../src/send/token-bucket.ts'

const A = '+15550000601'
const B = '+15550000602'

const toys: ToySignal[] = []
afterEach(async () => {
  await Promise.all(toys.splice(0).map((t) => t.close()))
})

/** Acknowledgements land in `acked`; a refusal fails the test. */
const owner = (acked: string[]): SendOwner => ({
  ack: (id) => void acked.push(id),
  reject: (id, code, message) => {
    throw new Error(`${id} rejected: ${code} ${message}`)
  },
})

/** A 24 KB join of one account's queue through a toy whose byte budget is 10 KB; paced by bytes or not. */
async function joinThroughToy(paced: boolean) {
  // A budget small enough to matter for a 24 KB join: 10 KB at once, then 4 KB a second (unpaced,
  // the join would have to take over 3.5 s to stay under it).
  const budget = { size: 10_000, periodMs: 1 / 4 }
  const toy = await createToySignal({
    accounts: [A, B],
    groups: [{ name: 'join', members: [A, B] }],
    signalPace: paced ? true : 'count',
    signalPaceLimits: { inboundBytes: budget },
  })
  toys.push(toy)
  const backend = createHttpSignalBackend({ url: toy.url, account: A, timeoutMs: 10_000, streamIdleMs: 60_000 })
  const acked: string[] = []
  const queue = createSendQueue({
    ...queueOptions(manualClock(), backend, { maxBodyBytes: 8000 }),
    groupId: toy.groups[0]?.id ?? '',
    now: systemClock.now,
    sleep: systemClock.sleep,
    reach: reachOn(systemClock),
    ...(paced ? { inboundBytes: createTokenBucket({ ratePerSecond: 4000, burst: 10_000, now: Date.now() }) } : {}),
  })
  const items = Array.from({ length: 6 }, () => ({ ...envelopeFrame(randomBytes(3000)), owner: owner(acked) }))
  for (const i of items) queue.enqueue(i)
  await queue.drain(30_000)
  queue.close()
  await backend.close()
  return { acked, items, refused: toy.refused(), sent: toy.sends().reduce((n, s) => n + s.message.length, 0) }
}

describe("Signal's inbound byte budget through the toy", () => {
  it('a 24 KB join through the toy enforcing a 10 KB budget: everything delivered, nothing refused', async () => {
    const r = await joinThroughToy(true)
    expect(r.acked.sort()).toEqual(r.items.map((i) => i.messageId).sort())
    expect(r.sent).toBeGreaterThan(24_000)
    expect(r.refused).toEqual({ messages: 0, attachments: 0, inboundBytes: 0 })
  }, 60_000)

  it('the same join unpaced by bytes would have been refused (the toy only counting)', async () => {
    const r = await joinThroughToy(false)
    expect(r.refused.inboundBytes).toBeGreaterThan(0)
  }, 60_000)
})
