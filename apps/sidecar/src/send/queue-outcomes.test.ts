/**
 * What the send queue does with each answer Signal gives (docs/sidecar.md §4.3–4.5): a send that
 * goes through is acknowledged; -5 pauses the group and sends the same body again; a partial
 * RATE_LIMIT_FAILURE is a send, resent to the limited members after the pause (bounded); a
 * definite rejection drops the envelopes and tells their owners; transient failures are retried
 * with backoff. Virtual time throughout: a sleep resolves only when the test moves the clock.
 */
import { decodeEnvelope } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import { SignalRpcError, SignalUnavailableError } from '@e2e-col/signal-cli'
import { captureLogs } from '../ops/log-fixture.ts'
import { createMetrics } from '../ops/metrics.ts'
import type { AttachmentSend } from './attachment-send.ts'
import { createSendQueue, type QueuedEnvelope, type SendQueueOptions } from './queue.ts'
import { envelopeFrame, idsIn, manualClock, queueOptions, reachOn, recordingOwner } from './send-fixture.ts'
import { createTokenBucket } from './token-bucket.ts'

type Result = { type: string; retryAfterSeconds?: number | null }
/** What the scripted daemon does with one send: answer with these results, throw, or hang until released. */
type Answer = Result[] | Error | { hang: true }

interface Call {
  at: number
  body: string
  attachments: readonly string[] | undefined
  release: (results?: Result[]) => void
  fail: (error: Error) => void
}

/** The frame of an update of `payloadBytes` bytes and its fresh message id. */
const updateFrame = (payloadBytes = 40) => envelopeFrame(new Uint8Array(payloadBytes).fill(1))

/** Signal away after one transient failure; probes from 10 ms up to 1 s. */
const ONE_ATTEMPT = { attempts: 1, probeMaxMs: 1000 }

/** An owner that records `<name> ack` or `<name> reject` in `heard`. */
const namedOwner = (heard: string[], name: string) => ({
  ack: () => void heard.push(`${name} ack`),
  reject: () => void heard.push(`${name} reject`),
})

/** The sum of a counter over its labels. */
const sumOf = async (metric: { get(): Promise<{ values: { value: number; labels: object }[] }> }) =>
  (await metric.get()).values.reduce((n, v) => n + v.value, 0)

function harness(
  answers: (n: number) => Answer = () => [],
  extra: Partial<SendQueueOptions> & { burst?: number; attempts?: number; listenUnsent?: boolean } = {},
) {
  const clock = manualClock()
  const calls: Call[] = []
  const backend = {
    sendGroupMessage: (_group: string, body: string, attachments?: readonly string[]) => {
      const answer = answers(calls.length)
      return new Promise<{ timestamp: number; results: Result[] }>((resolve, reject) => {
        const call: Call = {
          at: clock.now(),
          body,
          attachments,
          release: (results = []) => resolve({ timestamp: calls.length, results }),
          fail: reject,
        }
        calls.push(call)
        if (answer instanceof Error) reject(answer)
        else if (Array.isArray(answer)) call.release(answer)
      })
    },
  }
  const { logger, lines } = captureLogs('debug')
  const reach = reachOn(clock, { attempts: extra.attempts ?? 3 })
  const metrics = createMetrics()
  const heard: string[] = []
  const unsent: string[][] = []
  const queue = createSendQueue(
    queueOptions(clock, backend, {
      bucket: createTokenBucket({ ratePerSecond: 1, burst: extra.burst ?? 5, now: 0 }),
      retry: { attempts: extra.attempts ?? 3, baseMs: 1000, maxMs: 8000 },
      reach,
      ...(extra.listenUnsent === false ? {} : { onUnsent: (ids: readonly string[]) => void unsent.push([...ids]) }),
      metrics,
      logger,
      ...extra,
    }),
  )
  const envelope = (payloadBytes = 40): QueuedEnvelope => ({
    ...updateFrame(payloadBytes),
    owner: recordingOwner(heard),
  })
  /** Starts a drain of at most `ms`; the answer says whether it has ended. */
  const draining = (ms: number) => {
    let ended = false
    void queue.drain(ms).then(() => (ended = true))
    return () => ended
  }
  /**
   * Closes the queue (then runs `meanwhile`) and lets `ms` pass: no send more than before, and
   * no owner told anything.
   */
  const closeThenQuiet = async (ms: number, meanwhile: () => void = () => undefined) => {
    const before = calls.length
    queue.close()
    meanwhile()
    await clock.advance(ms)
    expect(calls).toHaveLength(before)
    expect(heard).toEqual([])
  }
  /** The second send goes `at` ms after the first (at 0), not a millisecond sooner. */
  const expectSecondSendAt = async (at: number) => {
    await clock.advance(at - 1 - clock.now())
    expect(calls).toHaveLength(1)
    await clock.advance(1)
    expect(calls.map((c) => c.at)).toEqual([0, at])
  }
  /** Drains with at most `ms`: still waiting `waiting` ms on, ended `endedAfter` ms later. */
  const drainEnds = async (ms: number, at: { waiting: number; endedAfter: number }) => {
    const ended = draining(ms)
    await clock.advance(at.waiting)
    expect(ended()).toBe(false)
    await clock.advance(at.endedAfter)
    expect(ended()).toBe(true)
  }
  return {
    clock,
    calls,
    queue,
    reach,
    metrics,
    heard,
    unsent,
    lines,
    envelope,
    draining,
    drainEnds,
    expectSecondSendAt,
    closeThenQuiet,
    count: sumOf,
  }
}

describe('send queue: rate limits (-5)', () => {
  it('holds the group for the pause Signal asks for, then sends the same body again and acknowledges it once', async () => {
    const h = harness((n) => (n === 0 ? new SignalRpcError(-5, 'Rate limit exceeded', 30) : []))
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(0)
    expect(h.calls).toHaveLength(1)
    expect(h.heard).toEqual([])
    await h.clock.advance(29_999)
    expect(h.calls).toHaveLength(1)
    await h.clock.advance(1)
    expect(h.calls).toHaveLength(2)
    expect(h.calls[1]?.at).toBe(30_000)
    expect(h.calls[1]?.body).toBe(h.calls[0]?.body)
    expect(h.heard).toEqual([`ack ${env.messageId}`])
    expect(await h.count(h.metrics.rateLimited)).toBe(1)
    expect(h.lines.filter((l) => l.msg.startsWith('Signal asked to slow down'))).toMatchObject([
      { groupPauseMs: 30_000 },
    ])
    expect(h.reach.state).toBe('reachable')
    h.queue.close()
  })

  it('pauses 60 s when -5 gives no pause', async () => {
    const h = harness((n) => (n === 0 ? new SignalRpcError(-5, 'Rate limit exceeded') : []))
    h.queue.enqueue(h.envelope())
    await h.expectSecondSendAt(60_000)
    h.queue.close()
  })
})

describe('send queue: a partial RATE_LIMIT_FAILURE', () => {
  it('is a send: acknowledged at once; after the longest pause the same body goes again, ahead of newer envelopes', async () => {
    const partial: Result[] = [
      { type: 'SUCCESS' },
      { type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 20 },
      { type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 40 },
    ]
    const h = harness((n) => (n === 0 ? partial : []))
    const first = h.envelope()
    h.queue.enqueue(first)
    await h.clock.advance(0)
    expect(h.heard).toEqual([`ack ${first.messageId}`])
    const newer = h.envelope()
    h.queue.enqueue(newer)
    await h.expectSecondSendAt(40_000)
    expect(h.calls[1]?.body).toBe(h.calls[0]?.body)
    await h.clock.advance(1000)
    expect(h.calls.map((c) => idsIn(c.body))).toEqual([[first.messageId], [first.messageId], [newer.messageId]])
    // The resend is not acknowledged again.
    expect(h.heard).toEqual([`ack ${first.messageId}`, `ack ${newer.messageId}`])
    expect(await h.count(h.metrics.rateLimited)).toBe(1)
    h.queue.close()
  })

  it('pauses 60 s for a limited recipient without a pause, even beside a shorter one', async () => {
    const h = harness((n) =>
      n === 0
        ? [
            { type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: null },
            { type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 10 },
          ]
        : [],
    )
    h.queue.enqueue(h.envelope())
    await h.expectSecondSendAt(60_000)
    h.queue.close()
  })

  it('sends a body at most `attempts` times in all while recipients stay limited', async () => {
    const h = harness(() => [{ type: 'SUCCESS' }, { type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 1 }], {
      attempts: 3,
    })
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(20_000)
    expect(h.calls).toHaveLength(3)
    expect(new Set(h.calls.map((c) => c.body)).size).toBe(1)
    expect(h.heard).toEqual([`ack ${env.messageId}`])

    // The count starts again for a body that went through: the same body limited later gets its own tries.
    const again = harness((n) =>
      n === 1 ? [] : [{ type: 'SUCCESS' }, { type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 1 }],
    )
    const one = again.envelope()
    again.queue.enqueue(one)
    await again.clock.advance(20_000)
    // First send limited, resend clean: two calls, nothing more pending.
    expect(again.calls).toHaveLength(2)
    again.queue.close()
    h.queue.close()
  })

  it('only logs a refused resend: its envelopes were reported sent already', async () => {
    const h = harness((n) =>
      n === 0
        ? [{ type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 1 }]
        : n === 1
          ? new SignalRpcError(-4, 'Untrusted identity')
          : [],
    )
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(5000)
    expect(h.calls).toHaveLength(2)
    expect(h.heard).toEqual([`ack ${env.messageId}`])
    expect(h.unsent).toEqual([])
    expect(h.lines.some((l) => l.msg === 'resend after a partial rate limit failed')).toBe(true)
    const next = h.envelope()
    h.queue.enqueue(next)
    await h.clock.advance(1000)
    expect(h.heard).toEqual([`ack ${env.messageId}`, `ack ${next.messageId}`])
    h.queue.close()
  })
})

describe('send queue: a definite rejection', () => {
  it('drops every envelope of the send and tells each owner with the daemon code and message, then goes on', async () => {
    const h = harness((n) => (n === 0 ? new SignalRpcError(-4, 'Untrusted identity for +4915112345678') : []), {
      burst: 1,
    })
    const batch = [h.envelope(), h.envelope(), h.envelope()]
    for (const b of batch) h.queue.enqueue(b)
    await h.clock.advance(0)
    expect(h.calls).toHaveLength(1)
    expect(idsIn(h.calls[0]?.body ?? '')).toEqual(batch.map((b) => b.messageId))
    const message = 'signal-cli error -4: Untrusted identity for +49…78'
    expect(h.heard).toEqual(batch.map((b) => `reject ${b.messageId} SIDECAR_SEND_REJECTED ${message}`))
    expect(h.unsent).toEqual([batch.map((b) => b.messageId)])
    expect(h.queue.queuedBytes).toBe(0)
    expect((await h.metrics.sendFailures.get()).values).toMatchObject([{ labels: { outcome: 'rejected' }, value: 1 }])
    const warn = h.lines.find((l) => l.msg.startsWith('send rejected by signal-cli'))
    expect(warn).toMatchObject({ code: 'SIDECAR_SEND_REJECTED', rpcCode: -4, envelopes: 3, groupQueued: 0 })
    expect(JSON.stringify(h.lines)).not.toContain('Untrusted identity')

    const next = h.envelope()
    h.queue.enqueue(next)
    await h.clock.advance(1000)
    expect(h.heard.at(-1)).toBe(`ack ${next.messageId}`)
    expect(h.reach.state).toBe('reachable')
    h.queue.close()
  })

  it('stops a chunked envelope at the refused body and counts only the bodies sent', async () => {
    const h = harness((n) => (n === 1 ? new SignalRpcError(-1, 'Group not found') : []), { burst: 10 })
    const env = h.envelope(4000)
    h.queue.enqueue(env)
    await h.clock.advance(0)
    expect(h.calls).toHaveLength(2)
    expect(h.heard).toEqual([`reject ${env.messageId} SIDECAR_SEND_REJECTED signal-cli error -1: Group not found`])
    expect((await h.metrics.chunksSent.get()).values[0]?.value).toBe(1)
    expect((await h.metrics.bodiesSent.get()).values).toMatchObject([{ labels: { mode: 'chunked' }, value: 1 }])
    h.queue.close()
  })

  it('reports a rejection that is not a JSON-RPC error without an rpc code', async () => {
    const h = harness((n) => (n === 0 ? new Error('unexpected') : []))
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(0)
    expect(h.heard).toEqual([`reject ${env.messageId} SIDECAR_SEND_REJECTED unexpected`])
    const warn = h.lines.find((l) => l.msg.startsWith('send rejected by signal-cli'))
    expect(warn).toMatchObject({ msg: expect.stringMatching(/^send rejected by signal-cli/) })
    expect(warn).not.toHaveProperty('rpcCode')
    h.queue.close()
  })
})

describe('send queue: transient failures', () => {
  it('retries a failed send after the jittered backoff, then acknowledges it, Signal still reachable', async () => {
    // baseMs 1000, rng 0.5: the first retry after 750 ms, the second after 1500 ms.
    const h = harness((n) => (n < 2 ? new SignalUnavailableError('connect ECONNREFUSED') : []))
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(749)
    expect(h.calls).toHaveLength(1)
    await h.clock.advance(1)
    expect(h.calls).toHaveLength(2)
    await h.clock.advance(1499)
    expect(h.calls).toHaveLength(2)
    await h.clock.advance(1)
    expect(h.calls.map((c) => c.at)).toEqual([0, 750, 2250])
    expect(h.heard).toEqual([`ack ${env.messageId}`])
    expect(h.reach.state).toBe('reachable')
    expect(await h.count(h.metrics.sendRetries)).toBe(2)
    h.queue.close()
  })

  it('counts Signal away after `attempts` failures in a row, and back with the first send that goes through', async () => {
    let offline = true
    const h = harness(() => (offline ? new SignalUnavailableError('connect ECONNREFUSED') : []), { attempts: 2 })
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    expect(h.reach.state).toBe('reachable')
    await h.clock.advance(750)
    expect(h.calls).toHaveLength(2)
    expect(h.reach.state).toBe('daemon-down')
    offline = false
    await h.clock.advance(1000)
    expect(h.reach.state).toBe('reachable')
    expect(h.heard).toHaveLength(1)
    expect(await h.count(h.metrics.signalProbes)).toBeGreaterThanOrEqual(1)
    h.queue.close()
  })

  it('stops retrying when closed during the backoff, and sends nothing more', async () => {
    const h = harness(() => new SignalUnavailableError('connect ECONNREFUSED'))
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    expect(h.calls).toHaveLength(1)
    await h.closeThenQuiet(60_000)
  })

  it('ends a send that fails after close without retrying it or telling the owner anything', async () => {
    const h = harness(() => ({ hang: true }))
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    h.queue.close()
    h.calls[0]?.fail(new SignalUnavailableError('socket hang up'))
    await h.clock.advance(60_000)
    expect(h.calls).toHaveLength(1)
    expect(h.heard).toEqual([])
    expect(await h.count(h.metrics.sendRetries)).toBe(0)
  })
})

describe('send queue: before a send', () => {
  it('hands the ids of the next send to `beforeSend` before its first body goes out', async () => {
    const seen: { ids: string[]; calls: number }[] = []
    let calls = 0
    const h = harness(
      () => {
        calls += 1
        return []
      },
      { burst: 1, beforeSend: (ids) => void seen.push({ ids: [...ids], calls }) },
    )
    const a = h.envelope()
    const b = h.envelope()
    h.queue.enqueue(a)
    h.queue.enqueue(b)
    await h.clock.advance(0)
    expect(seen).toEqual([{ ids: [a.messageId, b.messageId], calls: 0 }])
    h.queue.close()
  })

  it('stops the queue without sending when `beforeSend` throws, logs why, and still holds the envelope', async () => {
    const h = harness(() => [], {
      beforeSend: () => {
        throw new Error('disk full')
      },
    })
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    expect(h.lines.find((l) => l.msg === 'send queue stopped')).toMatchObject({ err: { message: 'disk full' } })
    // A stopped queue still holds the envelope: a drain waits for it (until its own timeout).
    await h.drainEnds(5000, { waiting: 4999, endedAfter: 1 })
    expect(h.calls).toHaveLength(0)
    expect(h.heard).toEqual([])
    h.queue.close()
  })
})

describe('send queue: bounds, drain, close and rewrite', () => {
  it('refuses an envelope past the byte bound, takes one that fits exactly, and none after close', async () => {
    const probe = harness()
    const size = probe.envelope().frame.byteLength
    probe.queue.close()
    const h = harness(() => ({ hang: true }), { maxQueueBytes: 2 * size })
    expect(h.queue.enqueue(h.envelope())).toBe(true)
    expect(h.queue.enqueue(h.envelope())).toBe(true)
    expect(h.queue.queuedBytes).toBe(2 * size)
    expect(h.queue.enqueue(h.envelope())).toBe(false)
    expect(h.queue.queuedBytes).toBe(2 * size)
    await h.clock.advance(0)
    h.calls[0]?.release()
    await h.clock.advance(0)
    expect(h.queue.queuedBytes).toBe(0)
    expect(h.queue.enqueue(h.envelope())).toBe(true)
    h.queue.close()
    expect(h.queue.enqueue(h.envelope())).toBe(false)
  })

  it('drains at once when idle, when the queue empties, or when the timeout passes', async () => {
    const h = harness(() => ({ hang: true }))
    await h.queue.drain(1000) // idle: at once, no timer
    expect(h.clock.pending()).toBe(0)
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    const emptied = h.draining(5000)
    await h.clock.advance(4999)
    expect(emptied()).toBe(false)
    h.calls[0]?.release()
    await h.clock.advance(0)
    expect(emptied()).toBe(true)

    h.queue.enqueue(h.envelope())
    await h.clock.advance(1000)
    await h.drainEnds(5000, { waiting: 4999, endedAfter: 1 }) // by its timeout
    h.queue.close()
  })

  it('lets close end a drain at once', async () => {
    const h = harness(() => ({ hang: true }))
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    const drained = h.draining(60_000)
    await h.clock.advance(0)
    h.queue.close()
    await h.clock.advance(0)
    expect(drained()).toBe(true)
  })

  it('rewrites only the envelopes no send has taken, keeping bytes and counts right', async () => {
    const h = harness(() => ({ hang: true }), { burst: 1 })
    const inFlight = h.envelope()
    h.queue.enqueue(inFlight)
    await h.clock.advance(0)
    const waiting = [h.envelope(), h.envelope(), h.envelope()]
    for (const w of waiting) h.queue.enqueue(w)
    expect(h.queue.waiting).toBe(3)
    const size = inFlight.frame.byteLength
    expect(h.queue.queuedBytes).toBe(4 * size)
    const replacement = h.envelope(400)
    let seen: readonly QueuedEnvelope[] = []
    h.queue.rewrite((w) => ((seen = w), [replacement]))
    expect(seen).toEqual(waiting)
    expect(h.queue.waiting).toBe(1)
    expect(h.queue.queuedBytes).toBe(size + replacement.frame.byteLength)
    h.calls[0]?.release()
    await h.clock.advance(1000)
    expect(h.calls.map((c) => idsIn(c.body))).toEqual([[inFlight.messageId], [replacement.messageId]])
    h.calls[1]?.release()
    await h.clock.advance(0)
    expect(h.heard).toEqual([`ack ${inFlight.messageId}`, `ack ${replacement.messageId}`])
    expect(h.queue.waiting).toBe(0)
    h.queue.close()
  })
})

/** Carries every frame as an attachment: a stand-in body and URI naming its message id. */
const asAttachment = (frame: Uint8Array): AttachmentSend => {
  const { messageId } = decodeEnvelope(frame)
  return { body: `ref ${messageId}`, attachments: [`data:application/octet-stream;base64,${messageId}`] }
}

describe('send queue: attachments', () => {
  it('sends a frame the attachment rule picks as one attachment send and acknowledges it', async () => {
    const h = harness(() => [], { attachment: asAttachment })
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(0)
    expect(h.calls).toHaveLength(1)
    expect(h.calls[0]?.body).toBe(`ref ${env.messageId}`)
    expect(h.calls[0]?.attachments).toEqual([`data:application/octet-stream;base64,${env.messageId}`])
    expect(h.heard).toEqual([`ack ${env.messageId}`])
    expect(h.queue.queuedBytes).toBe(0)
    expect((await h.metrics.attachmentsSent.get()).values).toMatchObject([{ labels: { outcome: 'sent' }, value: 1 }])
    expect((await h.metrics.bodiesSent.get()).values).toMatchObject([{ labels: { mode: 'attachment' }, value: 1 }])
    h.queue.close()
  })

  it('sends as text what the rule leaves out', async () => {
    const h = harness(() => [], { attachment: () => undefined })
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(0)
    expect(h.calls[0]?.attachments).toBeUndefined()
    expect(idsIn(h.calls[0]?.body ?? '')).toEqual([env.messageId])
    h.queue.close()
  })

  it('falls back to text at once when an attachment send fails, transiently or not, and never loses the envelope', async () => {
    for (const error of [
      new SignalRpcError(-32603, 'Failed to send message: 429 (IOException)'),
      new SignalUnavailableError('connect ECONNREFUSED'),
      new SignalRpcError(-1, 'Attachment too large'),
    ]) {
      const h = harness((n) => (n === 0 ? error : []), { attachment: asAttachment })
      const env = h.envelope()
      h.queue.enqueue(env)
      await h.clock.advance(1000)
      expect(h.calls).toHaveLength(2)
      expect(h.calls[0]?.attachments).toHaveLength(1)
      expect(h.calls[1]?.attachments).toBeUndefined()
      expect(idsIn(h.calls[1]?.body ?? '')).toEqual([env.messageId])
      expect(h.heard).toEqual([`ack ${env.messageId}`])
      expect(h.reach.state).toBe('reachable')
      expect(await h.count(h.metrics.sendRetries)).toBe(0)
      expect((await h.metrics.attachmentsSent.get()).values).toMatchObject([
        { labels: { outcome: 'fell-back' }, value: 1 },
      ])
      expect(h.lines.some((l) => l.msg === 'attachment send failed; sending the envelope as text')).toBe(true)
      h.queue.close()
    }
  })

  it('waits out a -5 and sends the same attachment again', async () => {
    const h = harness((n) => (n === 0 ? new SignalRpcError(-5, 'Rate limit exceeded', 10) : []), {
      attachment: asAttachment,
    })
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(10_000)
    expect(h.calls.map((c) => [c.at, c.attachments?.length])).toEqual([
      [0, 1],
      [10_000, 1],
    ])
    expect(h.heard).toEqual([`ack ${env.messageId}`])
    h.queue.close()
  })

  it('resends an attachment, with its attachment, to recipients that were rate limited', async () => {
    const h = harness((n) => (n === 0 ? [{ type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 5 }] : []), {
      attachment: asAttachment,
    })
    h.queue.enqueue(h.envelope())
    await h.clock.advance(5000)
    expect(h.calls).toHaveLength(2)
    expect(h.calls[1]?.body).toBe(h.calls[0]?.body)
    expect(h.calls[1]?.attachments).toEqual(h.calls[0]?.attachments)
    h.queue.close()
  })
})

describe('send queue: pace of every send', () => {
  it('takes a token for each further body of a chunked envelope', async () => {
    const h = harness(() => [], { burst: 2 })
    const env = h.envelope(5000) // four bodies of 2000
    h.queue.enqueue(env)
    await h.clock.advance(0)
    expect(h.calls).toHaveLength(2)
    await h.clock.advance(3000)
    expect(h.calls.map((c) => c.at)).toEqual([0, 0, 1000, 2000])
    expect(h.heard).toEqual([`ack ${env.messageId}`])
    expect(await h.count(h.metrics.chunksSent)).toBe(4)
    const fill = (await h.metrics.batchFill.get()).values
    const sum = fill.find((v) => (v as { metricName?: string }).metricName === 'e2e_col_batch_fill_ratio_sum')
    expect(sum?.value).toBeGreaterThan(1)
    expect(sum?.value).toBeLessThanOrEqual(4) // each body at most the boundary
    h.queue.close()
  })

  it('takes a token for a retry too: a retry never goes before the pace allows', async () => {
    const h = harness((n) => (n === 0 ? new SignalUnavailableError('connect ECONNREFUSED') : []), { burst: 1 })
    h.queue.enqueue(h.envelope())
    await h.clock.advance(2000)
    // The backoff ended at 750 ms; the bucket's next token came at 1000 ms.
    expect(h.calls.map((c) => c.at)).toEqual([0, 1000])
    h.queue.close()
  })

  it('takes a token for a resend', async () => {
    const h = harness((n) => (n === 0 ? [{ type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 2 }] : []), { burst: 1 })
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    h.queue.enqueue(h.envelope())
    await h.clock.advance(5000)
    // The burst was spent and the pause ends at 2 s: the resend takes the token of 3 s, the newer envelope the next.
    expect(h.calls.map((c) => c.at)).toEqual([0, 3000, 4000])
    h.queue.close()
  })

  it('measures each send from its start to its answer, and counts no probe while Signal is reachable', async () => {
    const h = harness(() => ({ hang: true }))
    await h.clock.advance(4000)
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    await h.clock.advance(2500)
    h.calls[0]?.release()
    await h.clock.advance(0)
    const latency = (await h.metrics.sendLatency.get()).values
    const sum = latency.find((v) => (v as { metricName?: string }).metricName === 'e2e_col_send_latency_seconds_sum')
    expect(sum?.value).toBe(2.5)
    expect(await h.count(h.metrics.signalProbes)).toBe(0)
    expect(h.lines.filter((l) => l.level >= 50)).toEqual([])
    h.queue.close()
  })

  it('logs each failed attempt at debug level with its number', async () => {
    const h = harness((n) => (n < 2 ? new SignalUnavailableError('connect ECONNREFUSED') : []))
    h.queue.enqueue(h.envelope())
    await h.clock.advance(5000)
    expect(h.lines.filter((l) => l.msg === 'send failed; will retry').map((l) => [l.level, l['attempt']])).toEqual([
      [20, 0],
      [20, 1],
    ])
    h.queue.close()
  })
})

describe('send queue: closing while Signal is away', () => {
  it('tells no owner anything and forgets no id: the envelopes stay in the outbox for the next start', async () => {
    let offline = true
    const h = harness(() => (offline ? new SignalUnavailableError('connect ECONNREFUSED') : []))
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(10_000)
    expect(h.reach.state).toBe('daemon-down')
    await h.closeThenQuiet(60_000, () => void (offline = false))
    expect(h.unsent).toEqual([])
    expect(h.lines.filter((l) => l.level >= 50)).toEqual([])
  })

  it('sends no further body of a chunked envelope once closed', async () => {
    const h = harness(() => [], { burst: 1 })
    h.queue.enqueue(h.envelope(5000))
    await h.clock.advance(0)
    expect(h.calls).toHaveLength(1)
    await h.closeThenQuiet(10_000)
  })
})

describe('send queue: a probe that ends otherwise', () => {
  it('hands the probe turn on when the probe is refused, so other documents still send', async () => {
    let offline = true
    const clock = manualClock()
    const calls: string[] = []
    const backend = {
      sendGroupMessage: async (group: string) => {
        calls.push(group)
        if (offline) throw new SignalUnavailableError('connect ECONNREFUSED')
        if (group === 'refused') throw new SignalRpcError(-1, 'Group not found')
        return { timestamp: 1, results: [] }
      },
    }
    const reach = reachOn(clock, ONE_ATTEMPT)
    const heard: string[] = []
    const queueFor = (groupId: string) =>
      createSendQueue(queueOptions(clock, backend, { groupId, retry: { attempts: 1, baseMs: 10, maxMs: 100 }, reach }))
    const refused = queueFor('refused')
    const fine = queueFor('fine')
    const envelope = (name: string): QueuedEnvelope => ({ ...updateFrame(), owner: namedOwner(heard, name) })
    refused.enqueue(envelope('refused'))
    await clock.advance(0)
    expect(reach.state).toBe('daemon-down')
    fine.enqueue(envelope('fine'))
    await clock.advance(0)
    // The daemon is back, but only for the refused group's probe: its refusal must free the turn.
    offline = false
    await clock.advance(5000)
    expect(heard).toContain('refused reject')
    expect(heard).toContain('fine ack')
    refused.close()
    fine.close()
  })
})

describe('send queue: compression', () => {
  it('compresses no envelope and warns of nothing without a compressor', async () => {
    const h = harness()
    h.queue.enqueue(h.envelope(5000))
    await h.clock.advance(10_000)
    expect(h.heard).toHaveLength(1)
    expect(h.lines.filter((l) => l.level >= 40)).toEqual([])
    h.queue.close()
  })

  it('warns once when compression fails and still sends the envelope', async () => {
    const h = harness(() => [], { shrink: () => Promise.reject(new Error('zlib broke')) })
    h.queue.enqueue(h.envelope(5000))
    await h.clock.advance(10_000)
    expect(h.heard).toHaveLength(1)
    expect(h.lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([
      'could not compress an envelope; sending it as it is',
    ])
    expect(h.lines.find((l) => l.level >= 40)).toMatchObject({ err: { message: 'zlib broke' } })
    h.queue.close()
  })

  it('compresses an envelope once even when its attachment send falls back to text', async () => {
    let shrinks = 0
    const h = harness((n) => (n === 0 ? new SignalRpcError(-1, 'Attachment too large') : []), {
      shrink: async (frame) => (shrinks++, new Uint8Array(frame)),
      attachment: (frame) => ({ body: 'ref', attachments: [`data:;base64,${frame.byteLength}`] }),
    })
    h.queue.enqueue(h.envelope())
    await h.clock.advance(1000)
    expect(h.calls.map((c) => c.attachments?.length)).toEqual([1, undefined])
    expect(shrinks).toBe(1)
    h.queue.close()
  })

  it('keeps the envelope being compressed at the front: one that arrives meanwhile is neither lost nor sent twice', async () => {
    // The front has a late tag (a merged backlog is re-queued under fresh tags), so a newcomer's
    // tag is lower: only the pin keeps it from passing the envelope being compressed.
    const shrinkWaits: (() => void)[] = []
    const h = harness(() => ({ hang: true }), {
      burst: 10,
      shrink: (frame) => new Promise<Uint8Array>((resolve) => shrinkWaits.push(() => resolve(new Uint8Array(frame)))),
    })
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    shrinkWaits.shift()?.()
    await h.clock.advance(0)
    expect(h.calls).toHaveLength(1)
    for (let i = 0; i < 3; i++) h.queue.enqueue(h.envelope())
    const merged = h.envelope()
    h.queue.rewrite(() => [merged])
    h.calls[0]?.release()
    await h.clock.advance(0)
    expect(shrinkWaits).toHaveLength(1) // compressing `merged`
    const newcomer = { ...h.envelope(), source: {} }
    h.queue.enqueue(newcomer)
    shrinkWaits.shift()?.()
    await h.clock.advance(0)
    h.calls[1]?.release()
    await h.clock.advance(0)
    shrinkWaits.shift()?.()
    await h.clock.advance(1000)
    h.calls[2]?.release()
    await h.clock.advance(0)
    const sent = h.calls.slice(1).flatMap((c) => idsIn(c.body))
    expect([...sent].sort()).toEqual([merged.messageId, newcomer.messageId].sort())
    expect(h.heard.slice(1).sort()).toEqual([`ack ${merged.messageId}`, `ack ${newcomer.messageId}`].sort())
    h.queue.close()
  })
})

describe('send queue: turns between sources over several sends', () => {
  // Envelopes too large to share a body: each send carries exactly one, so the send order is the queue order.
  it('places a newcomer after the envelopes of the round being served, before the next rounds', async () => {
    for (const shrink of [undefined, async (frame: Uint8Array) => new Uint8Array(frame)]) {
      const h = harness(() => [], { burst: 1, ...(shrink === undefined ? {} : { shrink }) })
      const a = {}
      const b = {}
      const named = new Map<string, string>()
      const add = (name: string, source: object) => {
        const env = { ...h.envelope(1200), source }
        named.set(env.messageId, name)
        h.queue.enqueue(env)
      }
      add('a1', a)
      add('a2', a)
      add('a3', a)
      add('b1', b)
      add('b2', b)
      add('b3', b)
      await h.clock.advance(0) // a1 sent
      await h.clock.advance(1000) // b1 sent: round 1 served
      add('c1', {})
      await h.clock.advance(10_000)
      const order = h.calls.flatMap((c) => idsIn(c.body)).map((id) => named.get(id))
      expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'c1', 'a3', 'b3'])
      h.queue.close()
    }
  })
})

describe('send queue: without an onUnsent listener', () => {
  it('drops a refused send and goes on without error', async () => {
    const h = harness((n) => (n === 0 ? new SignalRpcError(-1, 'Group not found') : []), { listenUnsent: false })
    const refused = h.envelope()
    h.queue.enqueue(refused)
    await h.clock.advance(0)
    const next = h.envelope()
    h.queue.enqueue(next)
    await h.clock.advance(1000)
    expect(h.heard.map((x) => x.split(' ')[0])).toEqual(['reject', 'ack'])
    expect(h.lines.filter((l) => l.level >= 50)).toEqual([])
    h.queue.close()
  })
})

/** Several documents' queues sharing one view of Signal (attempts 1: one transient failure makes Signal away). */
function documents(answer: (group: string, n: number) => Answer) {
  const clock = manualClock()
  const calls: (Call & { group: string })[] = []
  const backend = {
    sendGroupMessage: (group: string, body: string, attachments?: readonly string[]) => {
      const a = answer(group, calls.filter((c) => c.group === group).length)
      return new Promise<{ timestamp: number; results: Result[] }>((resolve, reject) => {
        const call = {
          group,
          at: clock.now(),
          body,
          attachments,
          release: (results: Result[] = []) => resolve({ timestamp: 1, results }),
          fail: reject,
        }
        calls.push(call)
        if (a instanceof Error) reject(a)
        else if (Array.isArray(a)) call.release(a)
      })
    },
  }
  const reach = reachOn(clock, ONE_ATTEMPT)
  const heard: string[] = []
  const queue = (groupId: string, pace = { ratePerSecond: 1000, burst: 1000 }) => {
    const q = createSendQueue(
      queueOptions(clock, backend, {
        groupId,
        bucket: createTokenBucket({ ...pace, now: clock.now() }),
        retry: { attempts: 1, baseMs: 10, maxMs: 100 },
        reach,
      }),
    )
    q.enqueue({ ...updateFrame(), owner: namedOwner(heard, groupId) })
    return q
  }
  const of = (group: string) => calls.filter((c) => c.group === group)
  return { clock, reach, heard, queue, of }
}

describe('send queue: one probe at a time across documents', () => {
  it.each([
    ['refused', () => new SignalRpcError(-4, 'Untrusted identity')],
    ['rate limited', () => new SignalRpcError(-5, 'Rate limit exceeded', 1)],
  ])(
    'a send that began while Signal was reachable and ends %s does not free the probe turn it never held',
    async (_name, error) => {
      const d = documents((group, n) =>
        group === 'a'
          ? n === 0
            ? { hang: true }
            : []
          : group === 'b'
            ? n === 0
              ? new SignalUnavailableError('down')
              : { hang: true }
            : [],
      )
      const qa = d.queue('a') // its send hangs, begun while reachable
      await d.clock.advance(0)
      const qb = d.queue('b') // fails: Signal is away; then b probes and its probe hangs
      await d.clock.advance(1000)
      expect(d.reach.state).toBe('daemon-down')
      expect(d.of('b')).toHaveLength(2)
      const qc = d.queue('c') // waits for the probe turn
      await d.clock.advance(1000)
      expect(d.of('c')).toHaveLength(0)
      d.of('a')[0]?.fail(error())
      await d.clock.advance(1000)
      expect(d.of('c')).toHaveLength(0) // b still holds the turn: no second probe
      d.of('b')[1]?.release()
      await d.clock.advance(2000)
      expect(d.heard).toContain('b ack')
      expect(d.heard).toContain('c ack')
      for (const q of [qa, qb, qc]) q.close()
    },
  )

  it('a send that ends after its queue closed does not free a probe turn it never held', async () => {
    const d = documents((group, n) =>
      group === 'a'
        ? { hang: true }
        : group === 'b'
          ? n === 0
            ? new SignalUnavailableError('down')
            : { hang: true }
          : [],
    )
    const qa = d.queue('a')
    await d.clock.advance(0)
    const qb = d.queue('b')
    await d.clock.advance(1000)
    const qc = d.queue('c')
    await d.clock.advance(1000)
    qa.close()
    d.of('a')[0]?.fail(new SignalUnavailableError('socket hang up'))
    await d.clock.advance(1000)
    expect(d.of('c')).toHaveLength(0)
    qb.close()
    qc.close()
  })

  it('a probe that is rate limited waits out the pause and probes again, then sends', async () => {
    const d = documents((_group, n) =>
      n === 0 ? new SignalUnavailableError('down') : n === 1 ? new SignalRpcError(-5, 'Rate limit exceeded', 2) : [],
    )
    const qa = d.queue('a')
    await d.clock.advance(10_000)
    expect(d.of('a')).toHaveLength(3)
    expect(d.heard).toEqual(['a ack'])
    expect(d.reach.state).toBe('reachable')
    qa.close()
  })

  it('a probe whose queue closes hands the turn to another document', async () => {
    const d = documents((group, n) =>
      group === 'a' ? (n === 0 ? new SignalUnavailableError('down') : { hang: true }) : [],
    )
    const qa = d.queue('a')
    await d.clock.advance(1000)
    expect(d.of('a')).toHaveLength(2) // the probe, in flight
    const qb = d.queue('b')
    await d.clock.advance(1000)
    expect(d.of('b')).toHaveLength(0)
    qa.close()
    d.of('a')[1]?.fail(new SignalUnavailableError('socket hang up'))
    await d.clock.advance(1000)
    expect(d.heard).toEqual(['b ack'])
    qb.close()
  })
  it('a probe whose queue closes while it waits for the pace hands the turn to another document', async () => {
    const d = documents((group, n) => (group === 'a' && n === 0 ? new SignalUnavailableError('down') : []))
    const qa = d.queue('a', { ratePerSecond: 1, burst: 1 }) // its next token comes at 1 s
    await d.clock.advance(100) // a failed, Signal is away, a holds the probe turn and waits for a token
    expect(d.reach.state).toBe('daemon-down')
    const qb = d.queue('b')
    await d.clock.advance(100)
    expect(d.of('b')).toHaveLength(0)
    qa.close()
    await d.clock.advance(1000)
    expect(d.of('a')).toHaveLength(1)
    expect(d.heard).toEqual(['b ack'])
    qb.close()
  })
})

describe('send queue: closing while waiting for the probe turn', () => {
  it('tells the owner nothing, whether the queue holds the turn or waits for it', async () => {
    const d = documents((group, n) =>
      group === 'a' ? (n === 0 ? new SignalUnavailableError('down') : { hang: true }) : [],
    )
    const qa = d.queue('a')
    await d.clock.advance(1000) // a failed, Signal is away, a's probe hangs
    const qb = d.queue('b') // waits for the turn
    await d.clock.advance(1000)
    qb.close()
    await d.clock.advance(1000)
    expect(d.heard).toEqual([])
    qa.close()

    const e = documents(() => new SignalUnavailableError('down'))
    const qc = e.queue('c')
    await e.clock.advance(5000) // c probes again and again, waiting out its backoff between probes
    expect(e.of('c').length).toBeGreaterThan(3)
    qc.close()
    await e.clock.advance(5000)
    expect(e.heard).toEqual([])
  })

  it('a send that began while Signal was reachable and closes while waiting for the pace frees no probe turn', async () => {
    const d = documents((group, n) =>
      group === 'b' ? (n === 0 ? new SignalUnavailableError('down') : { hang: true }) : [],
    )
    const qa = d.queue('a', { ratePerSecond: 1, burst: 2 })
    // After a's first envelope, a chunked one: its first body takes the burst's second token, its
    // second body waits for the token of 1 s in a send begun while Signal was reachable.
    qa.enqueue({ ...updateFrame(4000), owner: { ack: () => undefined, reject: () => undefined } })
    await d.clock.advance(0)
    expect(d.of('a')).toHaveLength(2)
    const qb = d.queue('b') // fails: Signal is away; b's probe hangs
    await d.clock.advance(100)
    expect(d.reach.state).toBe('daemon-down')
    const qc = d.queue('c')
    await d.clock.advance(100)
    qa.close()
    await d.clock.advance(100)
    expect(d.of('c')).toHaveLength(0)
    qb.close()
    qc.close()
  })
})

describe('send queue: attachment details', () => {
  it('hands the id to beforeSend, spends one token, and counts no fallback when closed during its rate-limit pause', async () => {
    const seen: string[][] = []
    const h = harness((n) => (n === 0 ? new SignalRpcError(-5, 'Rate limit exceeded', 10) : []), {
      burst: 1,
      attachment: asAttachment,
      beforeSend: (ids) => void seen.push([...ids]),
    })
    const env = h.envelope()
    h.queue.enqueue(env)
    await h.clock.advance(0)
    expect(h.calls.map((c) => [c.at, c.attachments?.length])).toEqual([[0, 1]]) // the burst's one token, not a second
    expect(seen).toEqual([[env.messageId]])
    await h.clock.advance(1000)
    h.queue.close()
    await h.clock.advance(20_000)
    expect(h.calls).toHaveLength(1)
    expect(await h.count(h.metrics.attachmentsSent)).toBe(0)
    expect(h.lines.filter((l) => l.msg === 'attachment send failed; sending the envelope as text')).toEqual([])
    expect(h.heard).toEqual([])
  })

  it("logs a fallback with the daemon's code", async () => {
    const h = harness((n) => (n === 0 ? new SignalRpcError(-1, 'Attachment too large') : []), {
      attachment: asAttachment,
    })
    h.queue.enqueue(h.envelope())
    await h.clock.advance(1000)
    expect(h.lines.find((l) => l.msg === 'attachment send failed; sending the envelope as text')).toMatchObject({
      outcome: 'rejected',
      rpcCode: -1,
    })
  })
})

describe('send queue: what each send reports', () => {
  it('hands beforeSend only the ids of the send about to go out, and counts no chunk for a bare body', async () => {
    const seen: string[][] = []
    const h = harness(() => [], { burst: 1, beforeSend: (ids) => void seen.push([...ids]) })
    const big = [h.envelope(1200), h.envelope(1200), h.envelope(1200)]
    for (const b of big) h.queue.enqueue(b)
    await h.clock.advance(0)
    expect(seen).toEqual([[big[0]?.messageId]])
    await h.clock.advance(2000)
    expect(seen).toEqual(big.map((b) => [b.messageId]))
    expect(await h.count(h.metrics.chunksSent)).toBe(0)
    expect((await h.metrics.bodiesSent.get()).values).toMatchObject([{ labels: { mode: 'single' }, value: 3 }])
    h.queue.close()
  })

  it('logs nothing for a resend that went through, and the reason of one that did not', async () => {
    const h = harness((n) =>
      n === 0 ? [{ type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 1 }] : n === 1 ? [] : new SignalRpcError(-1, 'x'),
    )
    h.queue.enqueue(h.envelope())
    await h.clock.advance(0)
    // Only a resend is left: a drain waits for it.
    await h.drainEnds(60_000, { waiting: 0, endedAfter: 5000 })
    expect(h.calls).toHaveLength(2)
    expect(h.lines.filter((l) => l.msg === 'resend after a partial rate limit failed')).toEqual([])

    const r = harness((n) =>
      n === 0 ? [{ type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 1 }] : new SignalRpcError(-4, 'Untrusted identity'),
    )
    r.queue.enqueue(r.envelope())
    await r.clock.advance(5000)
    expect(r.lines.find((l) => l.msg === 'resend after a partial rate limit failed')).toMatchObject({
      outcome: 'rejected',
    })
    h.queue.close()
    r.queue.close()
  })

  it('logs no failed resend when the queue closes during one', async () => {
    const h = harness((n) => (n === 0 ? [{ type: 'RATE_LIMIT_FAILURE', retryAfterSeconds: 1 }] : { hang: true }))
    h.queue.enqueue(h.envelope())
    await h.clock.advance(5000)
    expect(h.calls).toHaveLength(2)
    h.queue.close()
    h.calls[1]?.fail(new SignalUnavailableError('socket hang up'))
    await h.clock.advance(1000)
    expect(h.lines.filter((l) => l.msg === 'resend after a partial rate limit failed')).toEqual([])
  })
})
