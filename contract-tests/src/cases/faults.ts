/**
 * The toy's fault switches through its `/toy/v1/` admin route (daemon-contract.md §6.6). Each case resets
 * the switches when it ends so no fault leaks into the next case.
 */
import { SignalUnavailableError, type SignalEvent } from '@e2e-col/signal-cli'
import { expect } from 'vitest'
import {
  expectEventsRefused,
  expectRpcFailure,
  expectUnavailable,
  openClientEvents,
  rejectionOf,
} from '../client-probe.ts'
import { httpCall, rpcAnswer } from '../http-probe.ts'
import { openEvents, type SseProbe } from '../sse-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, type ContractTarget } from '../target.ts'
import { withOpen } from '../with-open.ts'
import { expectRpcError } from './jsonrpc-parsing.ts'
import { sendAs } from './send.ts'

/** Sets one switch through the admin route; asserts 204. */
export async function fault(t: ContractTarget, name: string, body: Record<string, unknown> = {}): Promise<void> {
  if (t.adminUrl === undefined) throw new Error('needs the toy admin route')
  const answer = await httpCall(t.adminUrl, `/toy/v1/faults/${name}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  })
  expect(answer.status, answer.text).toBe(204)
}

/**
 * Opens b's stream and waits for its headers, then sets the switch and runs `run` with the stream
 * still open: what b receives from then on is the fault's doing.
 */
export function faultWhileListening(
  t: ContractTarget,
  name: string,
  settings: Record<string, unknown>,
  run: (probe: SseProbe) => Promise<void>,
): Promise<void> {
  return withOpen(openEvents(t.url, fixtures(t).b), async (probe) => {
    await probe.response
    await fault(t, name, settings)
    await run(probe)
  })
}

/** The sends the toy recorded (its `/toy/v1/sends` admin route). */
export async function toySends(t: ContractTarget): Promise<{ message: string }[]> {
  return JSON.parse((await httpCall(t.adminUrl ?? '', '/toy/v1/sends')).text) as { message: string }[]
}

/** Runs a case and resets every switch afterwards, pass or fail. */
export function withReset<Rest extends unknown[]>(
  run: (t: ContractTarget, ...rest: Rest) => Promise<void>,
): (t: ContractTarget, ...rest: Rest) => Promise<void> {
  return async (t, ...rest) => {
    try {
      await run(t, ...rest)
    } finally {
      await fault(t, 'reset')
    }
  }
}

export function registerFaultCases(defineCase: DefineCase): void {
  defineCase(
    'toy',
    'fail-next-rpc answers HTTP 500 with an empty body for exactly the next N calls',
    withReset(async (t) => {
      await fault(t, 'fail-next-rpc', { n: 2 })
      for (let i = 0; i < 2; i += 1) {
        const answer = await rpcAnswer(t.url, 'version', undefined, i)
        expect(answer.status).toBe(500)
        expect(answer.text).toBe('')
      }
      expect((await rpcAnswer(t.url, 'version', undefined, 3)).status).toBe(200)
    }),
    {
      client: withReset(async (t, c) => {
        await fault(t, 'fail-next-rpc', { n: 2 })
        const backend = c.backend()
        // HTTP 500 is an outage to the client (the call may or may not have happened), never a refusal.
        for (let i = 0; i < 2; i += 1) await expect(backend.version()).rejects.toBeInstanceOf(SignalUnavailableError)
        expect(await backend.version()).toBe(t.version)
      }),
    },
  )

  defineCase(
    'toy',
    'drop-next-sends delivers the message, then drops the connection without an answer',
    withReset(async (t) => {
      const { a, groupId } = fixtures(t)
      await faultWhileListening(t, 'drop-next-sends', { n: 1 }, async (probe) => {
        const marker = `contract: dropped ${Date.now()}`
        await expect(rpcAnswer(t.url, 'send', { account: a, groupId, message: marker })).rejects.toThrow()
        // The ambiguous failure: the client saw an error, yet the group got the message.
        await probe.waitFor(
          (e) => (e.json.envelope['dataMessage'] as { message?: string } | undefined)?.message === marker,
        )
        expect((await toySends(t)).some((s) => s.message === marker)).toBe(true)
        expect((await sendAs(t.url, a, { groupId, message: 'contract: after drop' })).results.length).toBeGreaterThan(0)
      })
    }),
    {
      client: withReset(async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        await withOpen(openClientEvents(c, b), async (stream) => {
          await fault(t, 'drop-next-sends', { n: 1 })
          const marker = `contract: dropped (client) ${Date.now()}`
          expectUnavailable(await rejectionOf(c.backend(a).sendGroupMessage(groupId, marker)))
          await stream.waitFor((e) => e.type === 'message' && e.body === marker)
          expect(
            (await c.backend(a).sendGroupMessage(groupId, 'contract: after drop (client)')).results?.length,
          ).toBeGreaterThan(0)
        })
      }),
    },
  )

  defineCase(
    'toy',
    'delay holds every rpc answer for the given time',
    withReset(async (t) => {
      await fault(t, 'delay', { ms: 300 })
      const started = Date.now()
      expect((await rpcAnswer(t.url, 'version')).status).toBe(200)
      expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    }),
  )

  defineCase(
    'toy',
    'cut-streams ends every open stream now',
    withReset(async (t) => {
      const { b } = fixtures(t)
      const probe = openEvents(t.url, b)
      await probe.response
      await fault(t, 'cut-streams')
      await probe.ended
    }),
    {
      client: withReset(async (t, c) => {
        const { b } = fixtures(t)
        const stream = await openClientEvents(c, b)
        await fault(t, 'cut-streams')
        // A cut mid-body ends the client's iteration with its typed outage error; the events loop reconnects.
        expectUnavailable(await stream.ended)
      }),
    },
  )

  defineCase(
    'toy',
    'cut-streams after N events ends the stream after N; later messages wait for the next stream',
    withReset(async (t) => {
      const { a, b, groupId } = fixtures(t)
      const first = openEvents(t.url, b)
      await first.response
      await fault(t, 'cut-streams', { afterEvents: 2 })
      const stamps: number[] = []
      for (let i = 0; i < 4; i += 1)
        stamps.push((await sendAs(t.url, a, { groupId, message: `contract: cut ${i}` })).timestamp)
      await first.ended
      // Messages queued for b by earlier cases arrive first on a new stream; only this case's count.
      expect(first.events.map((e) => e.json.envelope['timestamp']).filter((s) => stamps.includes(s as number))).toEqual(
        stamps.slice(0, 2),
      )
      await withOpen(openEvents(t.url, b), async (second) => {
        await second.waitFor((e) => e.json.envelope['timestamp'] === stamps[3])
        expect(
          second.events.map((e) => e.json.envelope['timestamp']).filter((s) => stamps.includes(s as number)),
        ).toEqual(stamps.slice(2))
      })
    }),
    {
      client: withReset(async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const first = await openClientEvents(c, b)
        await fault(t, 'cut-streams', { afterEvents: 2 })
        const stamps: number[] = []
        for (let i = 0; i < 4; i += 1)
          stamps.push((await c.backend(a).sendGroupMessage(groupId, `contract: cut ${i} (client)`)).timestamp)
        await first.ended
        const mine = (events: readonly SignalEvent[]): number[] =>
          events.flatMap((e) =>
            e.type === 'message' && e.timestamp !== undefined && stamps.includes(e.timestamp) ? [e.timestamp] : [],
          )
        expect(mine(first.events)).toEqual(stamps.slice(0, 2))
        // What the events loop relies on: a cut loses nothing, the next stream carries the rest in order.
        await withOpen(openClientEvents(c, b), async (second) => {
          await second.waitFor((e) => e.type === 'message' && e.timestamp === stamps[3])
          expect(mine(second.events)).toEqual(stamps.slice(2))
        })
      }),
    },
  )

  defineCase(
    'toy',
    'duplicate-next-events writes the next event twice',
    withReset(async (t) => {
      const { a, groupId } = fixtures(t)
      await faultWhileListening(t, 'duplicate-next-events', { n: 1 }, async (probe) => {
        const once = await sendAs(t.url, a, { groupId, message: 'contract: twice' })
        const after = await sendAs(t.url, a, { groupId, message: 'contract: once' })
        await probe.waitFor((e) => e.json.envelope['timestamp'] === after.timestamp)
        const count = (ts: number): number => probe.events.filter((e) => e.json.envelope['timestamp'] === ts).length
        expect(count(once.timestamp)).toBe(2)
        expect(count(after.timestamp)).toBe(1)
      })
    }),
    {
      client: withReset(async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        await withOpen(openClientEvents(c, b), async (stream) => {
          await fault(t, 'duplicate-next-events', { n: 1 })
          const once = await c.backend(a).sendGroupMessage(groupId, 'contract: twice (client)')
          const after = await c.backend(a).sendGroupMessage(groupId, 'contract: once (client)')
          await stream.waitFor((e) => e.type === 'message' && e.timestamp === after.timestamp)
          // The client reads both copies; dropping the second is the receiver's job (sidecar.md).
          const count = (ts: number): number =>
            stream.events.filter((e) => e.type === 'message' && e.timestamp === ts).length
          expect(count(once.timestamp)).toBe(2)
          expect(count(after.timestamp)).toBe(1)
        })
      }),
    },
  )

  defineCase(
    'toy',
    'rate-limit per-recipient: a success whose result has RATE_LIMIT_FAILURE with token and retryAfterSeconds',
    withReset(async (t) => {
      const { a, groupId } = fixtures(t)
      await fault(t, 'rate-limit-next-sends', { n: 1, retryAfterSeconds: 86400, mode: 'per-recipient' })
      // The toy's group has three members, so one failed recipient still leaves a success.
      const result = await sendAs(t.url, a, { groupId, message: 'contract: partly limited' })
      const limited = result.results.filter((r) => r.type === 'RATE_LIMIT_FAILURE') as unknown as {
        token: string
        retryAfterSeconds: number
      }[]
      expect(limited).toHaveLength(1)
      expect(limited[0]?.retryAfterSeconds).toBe(86400)
      expect(typeof limited[0]?.token).toBe('string')
      expect(result.results.some((r) => r.type === 'SUCCESS')).toBe(true)
    }),
    {
      client: withReset(async (t, c) => {
        const { a, groupId } = fixtures(t)
        await fault(t, 'rate-limit-next-sends', { n: 1, retryAfterSeconds: 86400, mode: 'per-recipient' })
        const result = await c.backend(a).sendGroupMessage(groupId, 'contract: partly limited (client)')
        const limited = (result.results ?? []).filter((r) => r.type === 'RATE_LIMIT_FAILURE')
        expect(limited.map((r) => r.retryAfterSeconds)).toEqual([86400])
        expect((result.results ?? []).some((r) => r.type === 'SUCCESS')).toBe(true)
      }),
    },
  )

  defineCase(
    'toy',
    'rate-limit all-failed: -5 with the result in data.response, nothing delivered',
    withReset(async (t) => {
      const { a, groupId } = fixtures(t)
      await fault(t, 'rate-limit-next-sends', { n: 1, retryAfterSeconds: 60, mode: 'all-failed' })
      const answer = await rpcAnswer(t.url, 'send', { account: a, groupId, message: 'contract: limited' }, 'rl')
      const error = (
        answer.json as {
          error: {
            code: number
            message: string
            data: { response: { timestamp: number; results: { type: string; retryAfterSeconds: number }[] } }
          }
        }
      ).error
      expect(error.code).toBe(-5)
      expect(error.message).toBe('Failed to send message due to rate limiting')
      expect(error.data.response.results.length).toBeGreaterThan(0)
      for (const r of error.data.response.results) {
        expect(r.type).toBe('RATE_LIMIT_FAILURE')
        expect(r.retryAfterSeconds).toBe(60)
      }
      expect((answer.json as { id: string }).id).toBe('rl')
      expectRpcError(
        { jsonrpc: '2.0', error: { ...error, data: null }, id: 'rl' },
        -5,
        'Failed to send message due to rate limiting',
        'rl',
      )
    }),
    {
      client: withReset(async (t, c) => {
        const { a, groupId } = fixtures(t)
        await fault(t, 'rate-limit-next-sends', { n: 1, retryAfterSeconds: 60, mode: 'all-failed' })
        const error = await expectRpcFailure(
          c.backend(a).sendGroupMessage(groupId, 'contract: limited (client)'),
          -5,
          'Failed to send message due to rate limiting',
        )
        // The one number the client reads out of data.response.
        expect(error.retryAfterSeconds).toBe(60)
        expect(error.networkFailure).toBe(false)
      }),
    },
  )

  defineCase(
    'toy',
    'fail-events answers the next N events requests with HTTP 500 and an empty body, then streams again',
    withReset(async (t) => {
      const { b } = fixtures(t)
      await fault(t, 'fail-events', { n: 2 })
      for (let i = 0; i < 2; i += 1) {
        const failed = await httpCall(t.url, `/api/v1/events?account=${encodeURIComponent(b)}`)
        expect(failed.status).toBe(500)
        expect(failed.text).toBe('')
      }
      await withOpen(openEvents(t.url, b), async (probe) => {
        expect((await probe.response).status).toBe(200)
      })
    }),
    {
      client: withReset(async (t, c) => {
        const { b } = fixtures(t)
        await fault(t, 'fail-events', { n: 1 })
        await expectEventsRefused(c.backend(b), 500)
        const stream = await openClientEvents(c, b)
        stream.close()
      }),
    },
  )

  defineCase(
    'toy',
    'fail-events with a content type answers 200 that is not an event stream',
    withReset(async (t) => {
      await fault(t, 'fail-events', { n: 1, contentType: 'text/html' })
      const wrong = await httpCall(t.url, '/api/v1/events')
      expect(wrong.status).toBe(200)
      expect(wrong.headers['content-type']).toBe('text/html')
      expect(wrong.text).toBe('')
      const bad = await httpCall(t.adminUrl ?? '', '/toy/v1/faults/fail-events', {
        method: 'POST',
        body: '{"n":1,"status":99}',
      })
      expect(bad.status).toBe(400)
    }),
    {
      client: withReset(async (t, c) => {
        await fault(t, 'fail-events', { n: 1, contentType: 'text/html' })
        // A 200 that is no event stream is refused as such, not read as one.
        await expectEventsRefused(c.backend(), 200)
      }),
    },
  )

  defineCase('toy', 'the admin route rejects a malformed switch with 400 and an unknown one with 404', async (t) => {
    const bad = await httpCall(t.adminUrl ?? '', '/toy/v1/faults/fail-next-rpc', { method: 'POST', body: '{"n":-1}' })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.text)).toHaveProperty('error')
    expect((await httpCall(t.adminUrl ?? '', '/toy/v1/faults/nope', { method: 'POST', body: '{}' })).status).toBe(404)
  })
}
