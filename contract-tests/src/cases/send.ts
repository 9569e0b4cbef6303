/**
 * `send` and the other send-like methods: result shapes and every -1 error the sidecar can meet
 * (daemon-contract.md §6.4).
 */
import { randomBytes } from 'node:crypto'
import { maskNumbersIn } from '@e2e-col/signal-cli'
import { expect } from 'vitest'
import { rpcAnswer, rpcCall } from '../http-probe.ts'
import { expectRpcFailure } from '../client-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures } from '../target.ts'
import { expectCallError } from './jsonrpc-parsing.ts'

/** A well-formed v2 group id that no daemon knows. */
export function unknownGroupId(): string {
  return randomBytes(32).toString('base64')
}

export interface SendResult {
  timestamp: number
  results: {
    recipientAddress: { uuid: string | null; number: string | null; username?: string | null }
    groupId?: string
    type: string
  }[]
}

/** Sends as `account` and returns the result, failing the test on an error. */
export async function sendAs(url: string, account: string, params: Record<string, unknown>): Promise<SendResult> {
  const answer = await rpcAnswer(url, 'send', { account, ...params }, 's')
  const json = answer.json as { result?: SendResult; error?: unknown }
  if (json.result === undefined) throw new Error(`send failed: ${JSON.stringify(json.error)}`)
  return json.result
}

/** Asserts that a send's JSON-RPC answer is a result with a timestamp and at least one SUCCESS. */
export function expectSendSucceeded(json: unknown): void {
  expect(json).toMatchObject({
    result: {
      timestamp: expect.any(Number),
      results: expect.arrayContaining([expect.objectContaining({ type: 'SUCCESS' })]),
    },
  })
}

/** `text` as a literal inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function expectAddress(address: SendResult['results'][number]['recipientAddress']): void {
  expect(address.uuid).toMatch(UUID)
  // `username` arrived in 0.13.19 and is serialized as null when unknown.
  if ('username' in address) expect(address.username === null || typeof address.username === 'string').toBe(true)
}

export function registerSendCases(defineCase: DefineCase): void {
  defineCase(
    'delivery',
    'a group send answers {timestamp, results} with one SUCCESS per other member, each with groupId',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const result = await sendAs(t.url, a, { groupId, message: 'contract: group send' })
      expect(new Set(Object.keys(result))).toEqual(new Set(['results', 'timestamp']))
      expect(Number.isSafeInteger(result.timestamp)).toBe(true)
      const numbers = result.results.map((r) => r.recipientAddress.number)
      expect(numbers).toContain(b)
      expect(numbers).not.toContain(a)
      for (const r of result.results) {
        expectAddress(r.recipientAddress)
        expect(r.groupId).toBe(groupId)
        expect(r.type).toBe('SUCCESS')
      }
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        const result = await c.backend(a).sendGroupMessage(groupId, 'contract: group send (client)')
        expect(Number.isSafeInteger(result.timestamp)).toBe(true)
        expect(result.results?.length).toBeGreaterThan(0)
        for (const r of result.results ?? []) expect(r.type).toBe('SUCCESS')
      },
    },
  )

  defineCase('delivery', 'a direct send has one result per recipient and no groupId', async (t) => {
    const { a, b } = fixtures(t)
    const result = await sendAs(t.url, a, { recipient: b, message: 'contract: direct send' })
    expect(result.results).toHaveLength(1)
    const [only] = result.results
    expect(only?.recipientAddress.number).toBe(b)
    expect(only?.type).toBe('SUCCESS')
    expect(only).not.toHaveProperty('groupId')
  })

  defineCase('delivery', 'list params take one value or an array, under the singular or plural name', async (t) => {
    const { a, b, groupId } = fixtures(t)
    expect((await sendAs(t.url, a, { recipients: [b], message: 'contract: plural' })).results).toHaveLength(1)
    const viaGroupIds = await sendAs(t.url, a, { groupIds: [groupId], message: 'contract: groupIds' })
    expect(viaGroupIds.results.every((r) => r.groupId === groupId)).toBe(true)
  })

  defineCase(
    'delivery',
    'timestamps of successive sends are unique and increasing',
    async (t) => {
      const { a, groupId } = fixtures(t)
      const stamps: number[] = []
      for (let i = 0; i < 4; i += 1)
        stamps.push((await sendAs(t.url, a, { groupId, message: `contract: stamp ${i}` })).timestamp)
      for (let i = 1; i < stamps.length; i += 1) expect(stamps[i]).toBeGreaterThan(stamps[i - 1] ?? 0)
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        const stamps: number[] = []
        for (let i = 0; i < 4; i += 1)
          stamps.push((await c.backend(a).sendGroupMessage(groupId, `contract: client stamp ${i}`)).timestamp)
        for (let i = 1; i < stamps.length; i += 1) expect(stamps[i]).toBeGreaterThan(stamps[i - 1] ?? 0)
      },
    },
  )

  defineCase(
    'account',
    'an unknown group is -1 "Group not found: <id>" (never -32000)',
    async (t) => {
      const { a } = fixtures(t)
      const id = unknownGroupId()
      await expectCallError(t.url, 'send', { account: a, groupId: id, message: 'x' }, -1, `Group not found: ${id}`)
    },
    {
      client: async (t, c) => {
        const { a } = fixtures(t)
        const id = unknownGroupId()
        const error = await expectRpcFailure(
          c.backend(a).sendGroupMessage(id, 'x'),
          -1,
          maskNumbersIn(`Group not found: ${id}`),
        )
        expect(error.networkFailure).toBe(false)
      },
    },
  )

  defineCase(
    'account',
    'a malformed group id is -1 "Invalid group id: …"',
    async (t) => {
      const { a } = fixtures(t)
      for (const bad of ['not base64!', Buffer.alloc(7).toString('base64')])
        await expectCallError(t.url, 'send', { account: a, groupId: bad, message: 'x' }, -1, /^Invalid group id: /)
    },
    {
      client: async (t, c) => {
        const { a } = fixtures(t)
        for (const bad of ['not base64!', Buffer.alloc(7).toString('base64')])
          await expectRpcFailure(c.backend(a).sendGroupMessage(bad, 'x'), -1, /^Invalid group id: /)
      },
    },
  )

  defineCase(
    'account',
    'no target is -1 "No recipients given"; empty text is -1 "Sending empty message is not allowed…"',
    async (t) => {
      const { a, groupId } = fixtures(t)
      await expectCallError(t.url, 'send', { account: a, message: 'x' }, -1, 'No recipients given')
      for (const message of ['', undefined])
        await expectCallError(
          t.url,
          'send',
          { account: a, groupId, ...(message === undefined ? {} : { message }) },
          -1,
          'Sending empty message is not allowed, either a message, attachment or sticker must be given.',
          2,
        )
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        await expectRpcFailure(
          c.backend(a).sendGroupMessage(groupId, ''),
          -1,
          'Sending empty message is not allowed, either a message, attachment or sticker must be given.',
        )
      },
    },
  )

  defineCase('account', 'a command failure in a notification is dropped silently (201)', async (t) => {
    const { a } = fixtures(t)
    const answer = await rpcCall(t.url, {
      jsonrpc: '2.0',
      method: 'send',
      params: { account: a, groupId: unknownGroupId(), message: 'x' },
    })
    expect(answer.status).toBe(201)
    expect(answer.text).toBe('')
  })

  // argparse4j's getString is toString(): a number or a list is its Java text, not a ClassCastException.
  defineCase(
    'account',
    'a text message given as a JSON number or list is read as its text (validation goes on to the group)',
    async (t) => {
      const { a } = fixtures(t)
      const id = unknownGroupId()
      for (const message of [42, ['x', 'y']])
        await expectCallError(t.url, 'send', { account: a, groupId: id, message }, -1, `Group not found: ${id}`)
    },
  )

  // Jackson maps a JSON integer in the int range to Integer, and getLong casts: only a Long passes.
  defineCase(
    'account',
    'a timestamp param given as a string or a small integer is -32603 "… cannot be cast to class java.lang.Long … (ClassCastException)"',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const calls = [
        {
          method: 'sendReaction',
          params: { emoji: '👍', targetAuthor: b, targetTimestamp: '1700000000000' },
          from: 'String',
        },
        { method: 'sendReaction', params: { emoji: '👍', targetAuthor: b, targetTimestamp: 5 }, from: 'Integer' },
        { method: 'send', params: { message: 'x', quoteTimestamp: 5 }, from: 'Integer' },
      ]
      for (const [i, call] of calls.entries()) {
        const castError = new RegExp(
          `^class java\\.lang\\.${call.from} cannot be cast to class java\\.lang\\.Long.* \\(ClassCastException\\)$`,
        )
        await expectCallError(t.url, call.method, { account: a, groupId, ...call.params }, -32603, castError, i)
      }
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        // The client passes a reaction's target timestamp through: one in the int range fails the same way.
        await expectRpcFailure(
          c.backend(a).sendReaction(groupId, { author: b, timestamp: 5 }, '👍'),
          -32603,
          /^class java\.lang\.Integer cannot be cast to class java\.lang\.Long.* \(ClassCastException\)$/,
        )
      },
    },
  )

  defineCase('account', 'a recipient that is not a phone number is -1 "Invalid phone number \'<x>\': …"', async (t) => {
    const { a } = fixtures(t)
    const notANumber = { account: a, recipient: 'abc', message: 'x' }
    await expectCallError(t.url, 'send', notANumber, -1, /^Invalid phone number 'abc': /)
  })

  defineCase(
    'account',
    'sending to, reacting in or updating a group one has left is -1 "User is not a member in group: <name> (<id>)"',
    async (t) => {
      const { a, b, formerGroupId } = fixtures(t)
      const calls = [
        { method: 'send', params: { message: 'x' } },
        { method: 'sendReaction', params: { emoji: '👍', targetAuthor: b, targetTimestamp: 1_700_000_000_000 } },
        { method: 'updateGroup', params: { name: 'renamed by a former member' } },
      ]
      const notMember = new RegExp(`^User is not a member in group: .+ \\(${escapeRegExp(formerGroupId)}\\)$`)
      for (const [i, call] of calls.entries())
        await expectCallError(
          t.url,
          call.method,
          { account: a, groupId: formerGroupId, ...call.params },
          -1,
          notMember,
          i,
        )
    },
    {
      client: async (t, c) => {
        const { a, b, formerGroupId } = fixtures(t)
        const notMember = new RegExp(
          `^User is not a member in group: .+ \\(${escapeRegExp(maskNumbersIn(formerGroupId))}\\)$`,
        )
        const backend = c.backend(a)
        await expectRpcFailure(backend.sendGroupMessage(formerGroupId, 'x'), -1, notMember)
        await expectRpcFailure(
          backend.sendReaction(formerGroupId, { author: b, timestamp: 1_700_000_000_000 }, '👍'),
          -1,
          notMember,
        )
        await expectRpcFailure(
          backend.updateGroup(formerGroupId, { name: 'renamed by a former member' }),
          -1,
          notMember,
        )
      },
    },
  )

  defineCase(
    'delivery',
    'sendReaction answers the send result shape',
    async (t) => {
      const { a, b, groupId } = fixtures(t)
      const target = await sendAs(t.url, b, { groupId, message: 'contract: react to me' })
      const reaction = { account: a, groupId, emoji: '👍', targetAuthor: b, targetTimestamp: target.timestamp }
      const { result } = (await rpcAnswer(t.url, 'sendReaction', reaction)).json as { result: SendResult }
      expect(new Set(Object.keys(result))).toEqual(new Set(['results', 'timestamp']))
      expect(result.results.map((r) => r.recipientAddress.number)).toContain(b)
    },
    {
      client: async (t, c) => {
        const { a, b, groupId } = fixtures(t)
        const target = await c.backend(b).sendGroupMessage(groupId, 'contract: react to me (client)')
        await expect(
          c.backend(a).sendReaction(groupId, { author: b, timestamp: target.timestamp }, '👍'),
        ).resolves.toBeUndefined()
      },
    },
  )

  defineCase('account', 'sendMessageRequestResponse answers {}; bad type is -32603; no target is -1', async (t) => {
    const { a, b } = fixtures(t)
    const method = 'sendMessageRequestResponse'
    const ok = await rpcAnswer(t.url, method, { account: a, recipient: b, type: 'Accept' })
    expect((ok.json as { result: unknown }).result).toEqual({})
    await expectCallError(
      t.url,
      method,
      { account: a, recipient: b, type: 'foo' },
      -32603,
      /^No enum constant org\.asamk\.signal\.commands\.MessageRequestResponseType\.FOO \(IllegalArgumentException\)$/,
      2,
    )
    await expectCallError(t.url, method, { account: a, type: 'accept' }, -1, 'No recipients given', 3)
  })

  defineCase(
    'account',
    'sendMessageRequestResponse for a group answers {}; without type it is -32603 (NullPointerException)',
    async (t) => {
      const { a, groupId } = fixtures(t)
      const method = 'sendMessageRequestResponse'
      const ok = await rpcAnswer(t.url, method, { account: a, groupId, type: 'delete' })
      expect((ok.json as { result: unknown }).result).toEqual({})
      await expectCallError(t.url, method, { account: a, groupId }, -32603, /\(NullPointerException\)$/, 2)
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        // What the chat loop sends before posting to a group it was added to.
        await expect(c.backend(a).acceptGroupRequest(groupId)).resolves.toBeUndefined()
      },
    },
  )

  defineCase('delivery', 'getUserStatus answers one entry per recipient with uuid always present', async (t) => {
    const { a, b } = fixtures(t)
    const answer = await rpcAnswer(t.url, 'getUserStatus', { account: a, recipient: [b] })
    const [entry] = (
      answer.json as { result: { recipient: string; number?: string; uuid: string | null; isRegistered: boolean }[] }
    ).result
    expect(entry?.recipient).toBe(b)
    expect(entry?.isRegistered).toBe(true)
    expect(entry?.uuid).toMatch(UUID)
  })
}
