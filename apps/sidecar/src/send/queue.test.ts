import { decodeBody, decodeEnvelope, FLAGS } from '@e2e-col/protocol'
import { describe, expect, it, vi } from 'vitest'
import { SignalRpcError, SignalUnavailableError } from '@e2e-col/signal-cli'
import { deflateFrame } from './deflate-frame.ts'
import { createSendQueue, type QueuedEnvelope, type SendOwner } from './queue.ts'
import { envelopeFrame, idsIn, manualClock, queueOptions, reachOn, settle } from './send-fixture.ts'
import { createTokenBucket } from './token-bucket.ts'

/** An owner that only records acknowledgements, in `acked`. */
const acking = (acked: string[]): SendOwner => ({ ack: (id) => void acked.push(id), reject: () => undefined })

function item(acked: string[]): QueuedEnvelope {
  return { ...envelopeFrame(new Uint8Array(40)), owner: acking(acked) }
}

function setup(pace: { burst: number; minIntervalMs?: number; shrink?: (frame: Uint8Array) => Promise<Uint8Array> }) {
  const clock = manualClock()
  const bodies: string[] = []
  const backend = {
    sendGroupMessage: async (_group: string, body: string) => (
      bodies.push(body),
      { timestamp: bodies.length, results: [] }
    ),
  }
  const acked: string[] = []
  const queue = createSendQueue(
    queueOptions(clock, backend, {
      bucket: createTokenBucket({ ratePerSecond: 1, burst: pace.burst, now: 0 }),
      ...(pace.minIntervalMs === undefined ? {} : { minIntervalMs: pace.minIntervalMs }),
      ...(pace.shrink === undefined ? {} : { shrink: pace.shrink }),
    }),
  )
  return { clock, bodies, acked, queue }
}

describe('send queue pacing', () => {
  it('packs after the pace allows a send, so envelopes that arrive while waiting share that send', async () => {
    const { clock, bodies, acked, queue } = setup({ burst: 1 })
    const first = item(acked)
    queue.enqueue(first)
    await clock.advance(0)
    expect(bodies.map(idsIn)).toEqual([[first.messageId]])

    const second = item(acked)
    const third = item(acked)
    await clock.advance(100)
    queue.enqueue(second)
    await clock.advance(400)
    queue.enqueue(third)
    await clock.advance(400)
    expect(bodies).toHaveLength(1) // the pace (1 per second) has not allowed a second send yet
    await clock.advance(200)
    expect(bodies.map(idsIn)).toEqual([[first.messageId], [second.messageId, third.messageId]])
    expect(acked).toEqual([first.messageId, second.messageId, third.messageId])
    queue.close()
  })

  it('under steady editing sends new envelopes once per interval, keeping the burst unspent', async () => {
    const { clock, bodies, acked, queue } = setup({ burst: 5, minIntervalMs: 1000 })
    const first = item(acked)
    queue.enqueue(first)
    await clock.advance(0)
    const later = [item(acked), item(acked), item(acked)]
    for (const next of later) {
      await clock.advance(200)
      queue.enqueue(next)
    }
    await clock.advance(300) // t = 900: burst tokens are there, but the interval has not passed
    expect(bodies).toHaveLength(1)
    await clock.advance(100)
    expect(bodies.map(idsIn)).toEqual([[first.messageId], later.map((l) => l.messageId)])
    queue.close()
  })

  it('sends the next batch at once, without a pace wait, when no interval is set', async () => {
    const clock = manualClock()
    const waits: number[] = []
    const sends: { body: string; release: () => void }[] = []
    const backend = {
      sendGroupMessage: (_group: string, body: string) =>
        new Promise<{ timestamp: number; results: [] }>((resolve) =>
          sends.push({ body, release: () => resolve({ timestamp: 1, results: [] }) }),
        ),
    }
    const sleep = (ms: number, signal: AbortSignal) => (waits.push(ms), clock.sleep(ms, signal))
    const acked: string[] = []
    const queue = createSendQueue(queueOptions(clock, backend, { sleep }))
    const first = item(acked)
    queue.enqueue(first)
    await clock.advance(0)
    const second = item(acked)
    queue.enqueue(second)
    sends[0]?.release()
    // The clock does not move: a wait of any length, even 0 ms, would hold the second send.
    for (let i = 0; i < 10 && sends.length < 2; i++) await settle()
    expect(sends.map((x) => idsIn(x.body))).toEqual([[first.messageId], [second.messageId]])
    expect(waits).toEqual([])
    queue.close()
  })

  it('still sends the bodies of one chunked envelope back to back from the burst', async () => {
    const { clock, bodies, acked, queue } = setup({ burst: 5, minIntervalMs: 1000 })
    const { frame, messageId } = envelopeFrame(new Uint8Array(4000), { kind: 'snapshot' })
    queue.enqueue({ frame, messageId, owner: acking(acked) })
    await clock.advance(0)
    expect(bodies.length).toBeGreaterThanOrEqual(3)
    expect(acked).toEqual([messageId])
    queue.close()
  })
})

const big = (acked: string[]): QueuedEnvelope => ({
  ...envelopeFrame(new TextEncoder().encode('a Yjs update that repeats itself; '.repeat(300))),
  owner: acking(acked),
})

describe('send queue compression', () => {
  it('sends the deflated frame of a large envelope in fewer bodies and acks it', async () => {
    const plain = setup({ burst: 50 })
    plain.queue.enqueue(big(plain.acked))
    await plain.clock.advance(0)
    const packed = setup({ burst: 50, shrink: (frame) => deflateFrame(frame, 2000) })
    const env = big(packed.acked)
    packed.queue.enqueue(env)
    await vi.waitFor(() => expect(packed.acked).toEqual([env.messageId]))
    expect(packed.bodies).toHaveLength(1)
    expect(plain.bodies.length).toBeGreaterThan(5)
    const sent = decodeEnvelope(decodeBody(packed.bodies[0] ?? ''))
    expect(sent.flags & FLAGS.deflated).toBe(FLAGS.deflated)
    expect(packed.queue.queuedBytes).toBe(0)
    plain.queue.close()
    packed.queue.close()
  })

  it('sends the frame as it is when compression throws, and shrinks each envelope once', async () => {
    let calls = 0
    const { bodies, acked, queue } = setup({
      burst: 50,
      shrink: () => (calls++, Promise.reject(new Error('zlib broke'))),
    })
    const env = big(acked)
    queue.enqueue(env)
    await vi.waitFor(() => expect(acked).toEqual([env.messageId]))
    expect(bodies.length).toBeGreaterThan(5)
    expect(calls).toBe(1)
    queue.close()
  })
})

describe('send queue while Signal is away', () => {
  it('keeps every envelope through an hour without network, probing one at a time at the bounded backoff, and sends them all when it returns', async () => {
    const clock = manualClock()
    let offline = true
    const bodies: string[] = []
    let calls = 0
    const backend = {
      sendGroupMessage: async (_group: string, body: string) => {
        calls += 1
        if (offline)
          throw new SignalRpcError(
            -32603,
            'Failed to send message: Unable to resolve host (IOException) (UnexpectedErrorException)',
          )
        bodies.push(body)
        return { timestamp: 1, results: [] }
      },
    }
    const reach = reachOn(clock, { probeMaxMs: 60_000 })
    const states: string[] = []
    reach.onChange((s) => states.push(s))
    const queues = [0, 1].map(() => createSendQueue(queueOptions(clock, backend, { reach })))
    const acked: string[] = []
    const items = Array.from({ length: 4 }, () => item(acked))
    for (const [i, one] of items.entries()) queues[i % 2]?.enqueue(one)
    // An hour in 10 s steps.
    for (let t = 0; t < 3_600_000; t += 10_000) await clock.advance(10_000)
    expect(states).toEqual(['unreachable'])
    expect(acked).toEqual([])
    expect(queues.map((q) => q.queuedBytes > 0)).toEqual([true, true])
    // Two queues, one probe at a time: the 3 quick retries of each queue, the backoff's ramp from
    // 10 ms (13 doublings) and then at most one probe per 30 s (the bound's least jittered delay),
    // not one per queue.
    expect(calls).toBeGreaterThan(50)
    expect(calls).toBeLessThanOrEqual(2 * 3 + 13 + 3_600_000 / 30_000)
    offline = false
    for (let i = 0; i < 10 && acked.length < 4; i++) await clock.advance(60_000)
    expect(states).toEqual(['unreachable', 'reachable'])
    expect(new Set(acked)).toEqual(new Set(items.map((i) => i.messageId)))
    for (const q of queues) q.close()
  })

  it('tells a daemon that is down apart from a network that is', async () => {
    const clock = manualClock()
    const backend = {
      sendGroupMessage: async () => {
        throw new SignalUnavailableError('connect ECONNREFUSED')
      },
    }
    const reach = reachOn(clock)
    const queue = createSendQueue(queueOptions(clock, backend, { reach }))
    queue.enqueue(item([]))
    for (let i = 0; i < 20; i++) await clock.advance(100)
    expect(reach.state).toBe('daemon-down')
    expect(queue.queuedBytes).toBeGreaterThan(0)
    queue.close()
  })
})

/** A queue whose every send fails with `error`, holding one envelope. */
function failingWith(error: Error) {
  const clock = manualClock()
  let calls = 0
  const backend = {
    sendGroupMessage: async () => {
      calls += 1
      throw error
    },
  }
  const rejected: string[] = []
  const reach = reachOn(clock)
  const queue = createSendQueue(queueOptions(clock, backend, { reach }))
  const env = item([])
  queue.enqueue({ ...env, owner: { ack: () => undefined, reject: (id, code) => void rejected.push(`${id} ${code}`) } })
  return { clock, queue, reach, calls: () => calls, rejected }
}

describe('send queue failure classes', () => {
  it('retries a -1 whose every recipient had NETWORK_FAILURE as Signal being unreachable, keeping the envelope, never rejecting it', async () => {
    const run = failingWith(new SignalRpcError(-1, 'Failed to send message', undefined, { networkFailure: true }))
    for (let i = 0; i < 20; i++) await run.clock.advance(100)
    expect(run.calls()).toBeGreaterThan(3) // the quick retries, then the probes
    expect(run.reach.state).toBe('unreachable')
    expect(run.queue.queuedBytes).toBeGreaterThan(0)
    expect(run.rejected).toEqual([])
    run.queue.close()
  })

  it('rejects a plain -1 at once (bad input is not retried)', async () => {
    const run = failingWith(new SignalRpcError(-1, 'Failed to send message'))
    for (let i = 0; i < 5; i++) await run.clock.advance(100)
    expect(run.calls()).toBe(1)
    expect(run.reach.state).toBe('reachable')
    expect(run.rejected).toHaveLength(1)
    run.queue.close()
  })
})

function sourced(acked: string[], source: object): QueuedEnvelope {
  return { ...item(acked), source }
}

describe('send queue fairness between sources', () => {
  it('takes turns: a source with a hundred envelopes queued does not hold back another one', async () => {
    const { clock, bodies, acked, queue } = setup({ burst: 1, minIntervalMs: 1000 })
    const flooder = {}
    const flood = Array.from({ length: 100 }, () => sourced(acked, flooder))
    for (const f of flood) queue.enqueue(f)
    const polite = sourced(acked, {})
    queue.enqueue(polite)
    await clock.advance(0)
    expect(bodies).toHaveLength(1)
    expect(idsIn(bodies[0] ?? '')).toContain(polite.messageId)
    for (let i = 0; i < 20 && acked.length < 101; i++) await clock.advance(1000)
    // Everything is sent once, and each source's envelopes keep their order.
    const sent = bodies.flatMap(idsIn)
    expect(sent).toHaveLength(101)
    expect(sent.filter((id) => id !== polite.messageId)).toEqual(flood.map((f) => f.messageId))
    queue.close()
  })

  it('never lets an envelope that arrives during a send into that send, nor acks it with it', async () => {
    const clock = manualClock()
    const sends: { body: string; release: () => void }[] = []
    const backend = {
      sendGroupMessage: (_group: string, body: string) =>
        new Promise<{ timestamp: number; results: [] }>((resolve) =>
          sends.push({ body, release: () => resolve({ timestamp: 1, results: [] }) }),
        ),
    }
    const acked: string[] = []
    const queue = createSendQueue(queueOptions(clock, backend))
    const flooder = {}
    const first = [sourced(acked, flooder), sourced(acked, flooder), sourced(acked, flooder)]
    for (const f of first) queue.enqueue(f)
    await clock.advance(0)
    expect(sends).toHaveLength(1)
    // A newcomer's tag is lower than the flood's later ones, but the send in flight is pinned.
    const late = sourced(acked, {})
    queue.enqueue(late)
    sends[0]?.release()
    await clock.advance(0)
    expect(acked).toEqual(idsIn(sends[0]?.body ?? ''))
    expect(acked).not.toContain(late.messageId)
    sends[1]?.release()
    await clock.advance(0)
    expect(new Set(acked)).toEqual(new Set([...first.map((f) => f.messageId), late.messageId]))
    queue.close()
  })
})
