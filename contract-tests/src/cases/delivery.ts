/**
 * Delivery: the receive payloads of group and direct messages, the sender's sync copy, delivery to
 * a stream that connects late, long bodies (daemon-contract.md §6.5).
 */
import { expect } from 'vitest'
import { openEvents } from '../sse-probe.ts'
import { openClientEvents } from '../client-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, versionAtLeast } from '../target.ts'
import { withOpen } from '../with-open.ts'
import { sendAndReceive, sendAndReceiveViaClient } from './round-trip.ts'
import { sendAs } from './send.ts'

const ENVELOPE_HEAD = [
  'source',
  'sourceNumber',
  'sourceUuid',
  'sourceName',
  'sourceDevice',
  'timestamp',
  'serverReceivedTimestamp',
  'serverDeliveredTimestamp',
]

export function registerDeliveryCases(defineCase: DefineCase): void {
  defineCase(
    'delivery',
    'a group message reaches the other member as dataMessage with groupInfo, empty lists omitted',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      await sendAndReceive(t.url, a, b, { groupId, message: 'contract: hello group' }, ({ sent, received, data }) => {
        const { envelope } = received.json
        for (const key of ENVELOPE_HEAD) expect(envelope).toHaveProperty(key)
        expect(envelope['sourceNumber']).toBe(a)
        expect(data['timestamp']).toBe(sent.timestamp)
        expect(data['message']).toBe('contract: hello group')
        expect(data['expiresInSeconds']).toBe(0)
        expect(data['viewOnce']).toBe(false)
        const info = data['groupInfo'] as Record<string, unknown>
        expect(info['groupId']).toBe(groupId)
        expect(info['type']).toBe('DELIVER')
        expect(typeof info['groupName']).toBe('string')
        expect(Number.isInteger(info['revision'])).toBe(true)
        for (const list of ['attachments', 'mentions', 'previews', 'contacts', 'textStyles'])
          expect(data).not.toHaveProperty(list)
      })
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const body = 'contract: hello group (client)'
        await sendAndReceiveViaClient(c, { from: a, to: b, groupId, body }, ({ event }) => {
          expect(event).toMatchObject({ groupId, body, origin: 'data', sourceNumber: a })
          expect(event).not.toHaveProperty('attachments')
        })
      },
    },
  )

  defineCase('delivery', 'a text message given as a JSON number is sent as its text', async (t) => {
    const { a, b, groupId } = fixtures(t)
    await sendAndReceive(t.url, a, b, { groupId, message: 42 }, ({ data }) => {
      expect(data['message']).toBe('42')
    })
  })

  defineCase('delivery', 'a direct message reaches the recipient as dataMessage without groupInfo', async (t) => {
    const { a, b } = fixtures(t)
    await sendAndReceive(t.url, a, b, { recipient: b, message: 'contract: hello b' }, ({ data }) => {
      expect(data['message']).toBe('contract: hello b')
      expect(data).not.toHaveProperty('groupInfo')
    })
  })

  // A real daemon only shows sends made from another linked device this way; the toy models every
  // account as having one, so the sender's own stream sees its sends (daemon-contract.md §7).
  defineCase(
    'toy',
    "the sender's own stream gets a syncMessage.sentMessage copy with the same timestamp",
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      await withOpen(openEvents(t.url, a), async (probe) => {
        await probe.response
        const group = await sendAs(t.url, a, { groupId, message: 'contract: sync group' })
        const direct = await sendAs(t.url, a, { recipient: b, message: 'contract: sync direct' })
        const groupCopy = (await probe.waitFor((e) => e.json.envelope['timestamp'] === group.timestamp)).json
        const sentMessage = (groupCopy.envelope['syncMessage'] as { sentMessage: Record<string, unknown> }).sentMessage
        expect(groupCopy.account).toBe(a)
        expect(sentMessage['destination']).toBeNull()
        expect(sentMessage['destinationNumber']).toBeNull()
        expect(sentMessage['message']).toBe('contract: sync group')
        expect((sentMessage['groupInfo'] as { groupId: string }).groupId).toBe(groupId)
        const directCopy = (await probe.waitFor((e) => e.json.envelope['timestamp'] === direct.timestamp)).json
        const directSent = (directCopy.envelope['syncMessage'] as { sentMessage: Record<string, unknown> }).sentMessage
        expect(directSent['destinationNumber']).toBe(b)
        expect(directCopy.envelope).not.toHaveProperty('dataMessage')
      })
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        const body = 'contract: sync group (client)'
        await sendAndReceiveViaClient(c, { from: a, to: a, groupId, body }, ({ event }) => {
          expect(event).toMatchObject({ groupId, body, origin: 'sync', account: a })
        })
      },
    },
  )

  // Needs `--receive-mode on-connection` on a live daemon: with on-start the messages go to stdout.
  defineCase(
    'delivery',
    'messages sent while the recipient has no stream arrive in order when one connects',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const stamps: number[] = []
      for (let i = 0; i < 3; i += 1)
        stamps.push((await sendAs(t.url, a, { groupId, message: `contract: late ${i}` })).timestamp)
      await withOpen(openEvents(t.url, b), async (probe) => {
        const last = stamps.at(-1)
        await probe.waitFor((e) => e.json.envelope['timestamp'] === last)
        const seen = probe.events.map((e) => e.json.envelope['timestamp']).filter((s) => stamps.includes(s as number))
        expect(seen).toEqual(stamps)
      })
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const stamps: number[] = []
        for (let i = 0; i < 3; i += 1)
          stamps.push((await c.backend(a).sendGroupMessage(groupId, `contract: late ${i} (client)`)).timestamp)
        await withOpen(openClientEvents(c, b), async (stream) => {
          await stream.waitFor((e) => e.type === 'message' && e.timestamp === stamps.at(-1))
          const seen = stream.events.flatMap((e) =>
            e.type === 'message' && e.timestamp !== undefined && stamps.includes(e.timestamp) ? [e.timestamp] : [],
          )
          expect(seen).toEqual(stamps)
        })
      },
    },
  )

  defineCase(
    'delivery',
    'a body over 2000 UTF-8 bytes arrives whole (0.14+) with a text/x-signal-plain attachment',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      // 700 × 3-byte characters: 700 UTF-16 units (under the pre-0.13.11 char limit) but 2100 bytes.
      const text = '€'.repeat(700)
      await sendAndReceive(t.url, a, b, { groupId, message: text }, ({ data }) => {
        const message = data['message'] as string
        // Before 0.14.0 the body was cut at 2000 bytes on a character boundary.
        if (versionAtLeast(t.version, '0.14.0')) expect(message).toBe(text)
        else expect(text.startsWith(message) && Buffer.byteLength(message) <= 2000).toBe(true)
        const attachments = data['attachments'] as { contentType: string; size: number }[] | undefined
        const longText = attachments?.find((x) => x.contentType === 'text/x-signal-plain')
        expect(longText?.size).toBe(Buffer.byteLength(text))
      })
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const text = '€'.repeat(700)
        await sendAndReceiveViaClient(c, { from: a, to: b, groupId, body: text }, ({ event }) => {
          if (versionAtLeast(t.version, '0.14.0')) expect(event.body).toBe(text)
          else expect(text.startsWith(event.body)).toBe(true)
          // The long-text attachment is listed like any other (the sidecar's bodies stay far below it).
          expect(event.attachments?.find((x) => x.contentType === 'text/x-signal-plain')?.size).toBe(
            Buffer.byteLength(text),
          )
        })
      },
    },
  )

  defineCase(
    'delivery',
    'a body of exactly 2000 UTF-8 bytes has no long-text attachment',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const text = 'x'.repeat(2000)
      await sendAndReceive(t.url, a, b, { groupId, message: text }, ({ data }) => {
        expect(data['message']).toBe(text)
        expect(data).not.toHaveProperty('attachments')
      })
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const text = 'y'.repeat(2000)
        await sendAndReceiveViaClient(c, { from: a, to: b, groupId, body: text }, ({ event }) => {
          expect(event).toMatchObject({ body: text })
          expect(event).not.toHaveProperty('attachments')
        })
      },
    },
  )
}
