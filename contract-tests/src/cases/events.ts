/**
 * The events stream: status codes, headers, keep-alive, exact framing, `account` scoping
 * (daemon-contract.md §6.5).
 */
import { expect } from 'vitest'
import { expectEventsRefused, openClientEvents } from '../client-probe.ts'
import { httpCall } from '../http-probe.ts'
import { openEvents, settled } from '../sse-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, versionAtLeast } from '../target.ts'
import { withOpen } from '../with-open.ts'
import { UNKNOWN_NUMBER } from './account-routing.ts'
import { sendAndReceive, sendAndReceiveViaClient } from './round-trip.ts'
import { sendAs } from './send.ts'

/** One event exactly as signal-cli frames it: no space after the colons, one data line, bare params. */
export const EVENT_FRAME = /^event:receive\ndata:(\{[^\n]*\})\n\n$/

/** Whether `ended` settles within `ms` (a stream that stays open does not). */
function endsWithin(ended: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([ended.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))])
}

export function registerEventsCases(defineCase: DefineCase): void {
  defineCase(
    'any',
    'an unknown account on the events stream is HTTP 400 with an empty body',
    async (t) => {
      const answer = await httpCall(t.url, `/api/v1/events?account=${encodeURIComponent(UNKNOWN_NUMBER)}`)
      expect(answer.status).toBe(400)
      expect(answer.text).toBe('')
    },
    {
      client: async (_t, c) => {
        const refused = await expectEventsRefused(c.backend(UNKNOWN_NUMBER), 400)
        expect(refused.code).toBe('SIDECAR_EVENTS_FAILED')
      },
    },
  )

  // On a real daemon this case waits for the 15 s keep-alive once; the toy runs with a short period.
  defineCase(
    'any',
    'the stream is 200 text/event-stream and writes ":\\n" keep-alives; headers flushed at once from 0.14.4',
    async (t) => {
      await withOpen(openEvents(t.url), async (probe) => {
        const response = await probe.response
        const rawAtHeaders = probe.raw()
        expect(response.status).toBe(200)
        expect(String(response.headers['content-type'])).toBe('text/event-stream')
        // Before 0.14.4 the headers wait for the first write (AsamK/signal-cli#2033): either is real.
        if (versionAtLeast(t.version, '0.14.4')) expect(rawAtHeaders).toBe('')
        // Events queued for the daemon's accounts may come first; a keep-alive is a bare ":\n" line.
        const raw = await probe.waitForRaw((text) => /(^|\n):\n/.test(text), t.keepAliveMs * 2 + 5_000)
        expect(raw).toMatch(/^(?::\n|event:receive\ndata:[^\n]*\n\n)+$/)
      })
    },
    45_000,
  )

  // The real 0.13.x writes the headers with the first keep-alive (15 s), hence the long deadline.
  defineCase(
    'account',
    'the stream of a registered account (?account=%2B…) is 200 text/event-stream and stays open',
    async (t) => {
      const { a } = fixtures(t)
      await withOpen(openEvents(t.url, a), async (probe) => {
        const response = await probe.response
        expect(response.status).toBe(200)
        expect(String(response.headers['content-type'])).toBe('text/event-stream')
        expect(await endsWithin(probe.ended, 500)).toBe(false)
      })
    },
    {
      timeoutMs: 45_000,
      client: async (t, c) => {
        const { a } = fixtures(t)
        // openEvents resolves only on 200 text/event-stream (0.13.x sends the headers with its first keep-alive).
        await withOpen(openClientEvents(c, a), async (stream) => {
          expect(await endsWithin(stream.ended, 500)).toBe(false)
        })
      },
    },
  )

  defineCase(
    'delivery',
    'each event is "event:receive\\ndata:{envelope, account}\\n\\n": no JSON-RPC wrapper, no space, no id line',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      await sendAndReceive(t.url, a, b, { groupId, message: 'contract: framing' }, ({ probe, sent, received }) => {
        expect(received.event).toBe('receive')
        const frames = probe
          .raw()
          .split(/(?<=\n\n)/)
          .filter((f) => !/^(:\n)+$/.test(f))
          .map((f) => f.replace(/^(:\n)+/, ''))
        const mine = frames.find((f) => f.includes(`"timestamp":${sent.timestamp}`))
        expect(mine).toMatch(EVENT_FRAME)
        const data = JSON.parse(EVENT_FRAME.exec(mine ?? '')?.[1] ?? '{}') as Record<string, unknown>
        expect(new Set(Object.keys(data).filter((k) => k !== 'exception'))).toEqual(new Set(['account', 'envelope']))
        expect(data['account']).toBe(b)
        expect(data).not.toHaveProperty('jsonrpc')
      })
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const body = 'contract: framing (client)'
        await sendAndReceiveViaClient(c, { from: a, to: b, groupId, body }, ({ stream, event }) => {
          expect(event).toMatchObject({ type: 'message', groupId, body, origin: 'data', sourceNumber: a, account: b })
          // Every frame read as a receive event (other skips, such as a queued direct message, may come first).
          const unreadable = stream.events.filter(
            (e) => e.type === 'skipped' && (e.reason === 'malformed' || e.reason === 'unrelated-event'),
          )
          expect(unreadable).toEqual([])
        })
      },
    },
  )

  defineCase(
    'delivery',
    'a stream scoped with ?account=%2B… carries only that account; no account means all accounts',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const onlyA = openEvents(t.url, a)
      const all = openEvents(t.url)
      try {
        await settled(onlyA, all)
        const sent = await sendAs(t.url, a, { groupId, message: 'contract: scoping' })
        const forB = await all.waitFor((e) => e.json.account === b && e.json.envelope['timestamp'] === sent.timestamp)
        expect(forB.json.envelope['sourceNumber']).toBe(a)
        const reply = await sendAs(t.url, b, { groupId, message: 'contract: scoping reply' })
        await onlyA.waitFor((e) => e.json.envelope['timestamp'] === reply.timestamp && e.json.account === a)
        expect(onlyA.events.every((e) => e.json.account === a)).toBe(true)
      } finally {
        onlyA.close()
        all.close()
      }
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const body = 'contract: scoping reply (client)'
        await sendAndReceiveViaClient(c, { from: b, to: a, groupId, body }, ({ stream: onlyA }) => {
          // The client also drops anything naming another account; none arrives to be dropped.
          expect(onlyA.events.filter((e) => e.type === 'message').every((e) => e.account === a)).toBe(true)
          expect(onlyA.events.some((e) => e.type === 'skipped' && e.reason === 'other-account')).toBe(false)
        })
      },
    },
  )
}
