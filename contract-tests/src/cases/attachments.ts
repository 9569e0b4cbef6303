/**
 * Attachments (daemon-contract.md §6.9): data-URI attachments on `send`, the `attachments[]` of receive
 * events, `getAttachment` by id and its errors; and, toy only, Signal's pace (§6.9) and the
 * attachment fault switches.
 */
import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import { expectRpcFailure, openClientEvents } from '../client-probe.ts'
import { rpcAnswer, rpcCall, rpcRequest } from '../http-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, versionAtLeast, withToy, type ContractTarget } from '../target.ts'
import { withOpen } from '../with-open.ts'
import { UNKNOWN_NUMBER } from './account-routing.ts'
import { fault, withReset } from './faults.ts'
import { expectCallError, expectRpcError } from './jsonrpc-parsing.ts'
import { sendAndReceive, sendAndReceiveViaClient } from './round-trip.ts'
import { SERVER_RATE_LIMIT } from './send-failures.ts'
import { expectSendSucceeded, unknownGroupId } from './send.ts'

interface Attachment {
  contentType: string
  filename: string | null
  id: string
  size: number
  width: unknown
  height: unknown
  caption: unknown
  uploadTimestamp: unknown
}

const dataUri = (bytes: Buffer, name = 'e2e-col-contract.bin', type = 'application/octet-stream'): string =>
  `data:${type};filename=${name};base64,${bytes.toString('base64')}`

/** Sends `bytes` from a to the group and returns the attachment as b's stream shows it. */
function sendAttachment(t: ContractTarget, bytes: Buffer): Promise<{ attachment: Attachment; timestamp: number }> {
  const { a, b, groupId } = fixtures(t)
  const params = { groupId, message: 'contract: attachment', attachment: dataUri(bytes) }
  return sendAndReceive(t.url, a, b, params, ({ sent, data }) => {
    const attachment = (data['attachments'] as Attachment[] | undefined)?.[0]
    if (attachment === undefined) throw new Error('the message arrived without its attachment')
    return { attachment, timestamp: sent.timestamp }
  })
}

async function getAttachment(
  t: ContractTarget,
  account: string,
  params: Record<string, unknown>,
): Promise<{ result?: { data: string }; error?: { code: number; message: string } }> {
  return (await rpcAnswer(t.url, 'getAttachment', { account, ...params }, 'g')).json as never
}

export function registerAttachmentCases(defineCase: DefineCase): void {
  defineCase(
    'any',
    'getAttachment routes the account first: -32602 without one, or with an unknown one',
    async (t) => {
      await expectCallError(t.url, 'getAttachment', { id: 'x' }, -32602, 'Method requires valid account parameter')
      const stranger = { id: 'x', account: UNKNOWN_NUMBER }
      await expectCallError(t.url, 'getAttachment', stranger, -32602, 'Specified account does not exist', 2)
    },
    {
      client: async (_t, c) => {
        await expectRpcFailure(
          c.backend().getAttachment('x', unknownGroupId()),
          -32602,
          'Method requires valid account parameter',
        )
        await expectRpcFailure(
          c.backend(UNKNOWN_NUMBER).getAttachment('x', unknownGroupId()),
          -32602,
          'Specified account does not exist',
        )
      },
    },
  )

  defineCase(
    'delivery',
    "a data-URI attachment reaches the other member as attachments[] with signal-cli's fields",
    async (t) => {
      const bytes = randomBytes(3000)
      const { attachment, timestamp } = await sendAttachment(t, bytes)
      expect(attachment.contentType).toBe('application/octet-stream')
      expect(attachment.filename).toBe('e2e-col-contract.bin')
      expect(attachment.size).toBe(bytes.length)
      // The id is the remote id plus the file name's extension (AttachmentStore.getAttachmentFile).
      expect(attachment.id).toMatch(/^[A-Za-z0-9_-]+\.bin$/)
      for (const key of ['width', 'height', 'caption']) expect(attachment).toHaveProperty(key, null)
      expect(typeof attachment.uploadTimestamp).toBe('number')
      expect(attachment.uploadTimestamp as number).toBeLessThanOrEqual(Date.now() + 60_000)
      expect(timestamp).toBeGreaterThan(0)
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const bytes = randomBytes(3000)
        const send = {
          from: a,
          to: b,
          groupId,
          body: 'contract: attachment fields (client)',
          attachments: [dataUri(bytes)],
        }
        await sendAndReceiveViaClient(c, send, ({ event }) => {
          // What the sidecar reads of an entry: the id to fetch, the size to check first, the type.
          expect(event.attachments).toEqual([
            {
              id: expect.stringMatching(/^[A-Za-z0-9_-]+\.bin$/),
              size: bytes.length,
              contentType: 'application/octet-stream',
            },
          ])
        })
      },
    },
  )

  defineCase(
    'delivery',
    'getAttachment gives the receiver the same bytes as {data: base64}',
    async (t) => {
      const { b, groupId } = fixtures(t)
      const bytes = randomBytes(5000)
      const { attachment } = await sendAttachment(t, bytes)
      const answer = await getAttachment(t, b, { id: attachment.id, groupId })
      expect(Object.keys(answer.result ?? {})).toEqual(['data'])
      expect(Buffer.from(answer.result?.data ?? '', 'base64').equals(bytes)).toBe(true)
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const bytes = randomBytes(5000)
        const send = { from: a, to: b, groupId, body: 'contract: attachment (client)', attachments: [dataUri(bytes)] }
        await sendAndReceiveViaClient(c, send, async ({ event }) => {
          const [attachment] = event.attachments ?? []
          expect(attachment).toMatchObject({ size: bytes.length, contentType: 'application/octet-stream' })
          const got = await c.backend(b).getAttachment(attachment?.id ?? '', groupId)
          expect(Buffer.from(got).equals(bytes)).toBe(true)
        })
      },
    },
  )

  defineCase(
    'account',
    'getAttachment of an unknown id is -1 "Could not find attachment with ID: <id>"; no id is an error too',
    async (t) => {
      const { b, groupId } = fixtures(t)
      const id = 'e2e-col-no-such-attachment.bin'
      expectRpcError(await getAttachment(t, b, { id, groupId }), -1, `Could not find attachment with ID: ${id}`, 'g')
      const none = await getAttachment(t, b, { groupId })
      // 0.14 checks the parameter; 0.13 ends in a NullPointerException from java.io.File.
      if (versionAtLeast(t.version, '0.14.0')) expectRpcError(none, -1, 'Missing attachment id parameter', 'g')
      else expect(none.error?.code).toBe(-32603)
    },
    {
      client: async (t, c) => {
        const { b, groupId } = fixtures(t)
        const id = 'e2e-col-no-such-attachment.bin'
        await expectRpcFailure(c.backend(b).getAttachment(id, groupId), -1, `Could not find attachment with ID: ${id}`)
      },
    },
  )

  // 'delivery': offline, the real 0.13.19 fails the group send on the network before it reads the
  // attachment ("Failed to send message: Closed unexpectedly (SocketException) …").
  defineCase(
    'delivery',
    'an attachment that is no data URI is read as a path: -32603 "Failed to send message: …", nothing sent',
    async (t) => {
      const { a, groupId } = fixtures(t)
      const path = '/nonexistent/e2e-col-contract.bin'
      await expectCallError(
        t.url,
        'send',
        { account: a, groupId, message: 'contract: path', attachment: path },
        -32603,
        /^Failed to send message: \/nonexistent\/e2e-col-contract\.bin: .*No such file or directory.*\(AttachmentInvalidException\)/,
        3,
      )
    },
  )

  defineCase(
    'toy',
    'received attachments can be spoiled: corrupt changes one byte, lose answers not found',
    withReset(async (t) => {
      const { b, groupId } = fixtures(t)
      const bytes = randomBytes(2000)
      await fault(t, 'spoil-next-attachments', { n: 1, mode: 'corrupt' })
      const corrupt = await sendAttachment(t, bytes)
      const got = Buffer.from(
        (await getAttachment(t, b, { id: corrupt.attachment.id, groupId })).result?.data ?? '',
        'base64',
      )
      expect(got.length).toBe(bytes.length)
      expect(got.equals(bytes)).toBe(false)
      expect([...got].filter((x, i) => x !== bytes[i])).toHaveLength(1)
      await fault(t, 'spoil-next-attachments', { n: 1, mode: 'lose' })
      const lost = await sendAttachment(t, bytes)
      expect(lost.attachment.size).toBe(bytes.length)
      expectRpcError(
        await getAttachment(t, b, { id: lost.attachment.id, groupId }),
        -1,
        `Could not find attachment with ID: ${lost.attachment.id}`,
        'g',
      )
    }),
    {
      client: withReset(async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const bytes = randomBytes(2000)
        await withOpen(openClientEvents(c, b), async (stream) => {
          const receive = async (mode: string): Promise<string> => {
            await fault(t, 'spoil-next-attachments', { n: 1, mode })
            const sent = await c.backend(a).sendGroupMessage(groupId, `contract: ${mode} (client)`, [dataUri(bytes)])
            const event = await stream.waitFor((e) => e.type === 'message' && e.timestamp === sent.timestamp)
            return (event.type === 'message' ? event.attachments?.[0]?.id : undefined) ?? ''
          }
          // The client hands over whatever bytes the daemon has: checking them is the caller's (§3.13).
          const corrupt = Buffer.from(await c.backend(b).getAttachment(await receive('corrupt'), groupId))
          expect(corrupt.length).toBe(bytes.length)
          expect(corrupt.equals(bytes)).toBe(false)
          const lost = await receive('lose')
          await expectRpcFailure(
            c.backend(b).getAttachment(lost, groupId),
            -1,
            `Could not find attachment with ID: ${lost}`,
          )
        })
      }),
    },
  )

  defineCase(
    'toy',
    "Signal's pace (--signal-pace): 60 messages per sender and destination, then RATE_LIMIT_FAILURE with retryAfterSeconds; -5 when every member is limited",
    async (t) => {
      const [a, b, c] = ['+15550000101', '+15550000102', '+15550000103']
      await withToy(
        t,
        ['--account', a, '--account', b, '--group', `paced:${a},${b},${c}`, '--signal-pace'],
        async (toy) => {
          const groups = (await rpcAnswer(toy.url, 'listGroups', { account: a })).json as { result: { id: string }[] }
          const groupId = groups.result[0]?.id
          // One batch, so the bucket barely drains meanwhile: 60 pass, then every member is limited.
          const batch = Array.from({ length: 70 }, (_, i) =>
            rpcRequest('send', { account: a, groupId, message: `m${i}` }, i),
          )
          const answers = (await rpcCall(toy.url, batch)).json as {
            id: number
            result?: { results: { type: string }[] }
            error?: {
              code: number
              message: string
              data: { response: { results: { type: string; retryAfterSeconds?: number; token?: string }[] } }
            }
          }[]
          const passed = answers.filter((x) => x.result !== undefined)
          const limited = answers.filter((x) => x.error !== undefined)
          // At least the bucket's 60; more only by what drained while the batch ran (one per second).
          expect(passed.length).toBeGreaterThanOrEqual(60)
          expect(passed.length).toBeLessThan(70)
          for (const p of passed) expect(p.result?.results.map((r) => r.type)).toEqual(['SUCCESS', 'SUCCESS'])
          for (const l of limited) {
            expect(l.error?.code).toBe(-5)
            expect(l.error?.message).toBe('Failed to send message due to rate limiting')
            for (const r of l.error?.data.response.results ?? []) {
              expect(r.type).toBe('RATE_LIMIT_FAILURE')
              expect(r.retryAfterSeconds).toBeGreaterThanOrEqual(1)
              // A plain 429 has no challenge token.
              expect(r).not.toHaveProperty('token')
            }
          }
          // Another sender has its own bucket.
          expectSendSucceeded((await rpcAnswer(toy.url, 'send', { account: b, groupId, message: 'from b' }, 62)).json)
        },
      )
    },
    30_000,
  )

  defineCase(
    'toy',
    'Signal\'s pace: 50 attachment uploads per sender, then -32603 "[429] Rate limit exceeded"',
    async (t) => {
      const [a, b] = ['+15550000111', '+15550000112']
      await withToy(t, ['--account', a, '--account', b, '--signal-pace'], async (toy) => {
        const uri = dataUri(Buffer.from('x'))
        const uris = (n: number): string[] => Array.from({ length: n }, () => uri)
        // One send of 51: the uploads happen at once, so the 51st finds the bucket full.
        await expectCallError(
          toy.url,
          'send',
          { account: a, recipient: b, message: 'm', attachments: uris(51) },
          -32603,
          SERVER_RATE_LIMIT,
          17,
        )
        const within = await rpcAnswer(
          toy.url,
          'send',
          { account: b, recipient: a, message: 'm', attachments: uris(50) },
          18,
        )
        expectSendSucceeded(within.json)
      })
    },
    30_000,
  )

  defineCase(
    'toy',
    'an attachment over --max-attachment-bytes is refused with -32603 before anything is sent',
    async (t) => {
      const [a, b] = ['+15550000121', '+15550000122']
      await withToy(t, ['--account', a, '--account', b, '--max-attachment-bytes', '1000', '--faults'], async (toy) => {
        const tooLarge = { account: a, recipient: b, message: 'm', attachment: dataUri(randomBytes(1001)) }
        await expectCallError(toy.url, 'send', tooLarge, -32603, /^Failed to send message: \[413\] /)
        const sends = (await (await fetch(new URL('/toy/v1/sends', toy.url))).json()) as unknown[]
        expect(sends).toEqual([])
      })
    },
  )
}
