/**
 * Sends that fail for some or all recipients, and whole-request send failures (daemon-contract.md §6.4,
 * §6.6): per-recipient `UNREGISTERED_FAILURE` and `IDENTITY_FAILURE`, the all-failed errors -1 and
 * -4 carrying the written result in `data.response`, and a -32603 server rate limit. The toy reaches
 * them as a real daemon does (a group member who left Signal) or through its fault switches.
 */
import { expect } from 'vitest'
import { expectRpcFailure } from '../client-probe.ts'
import { httpCall, rpcAnswer, rpcResult } from '../http-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, withToy } from '../target.ts'
import { fault, faultWhileListening, toySends, withReset } from './faults.ts'
import { expectCallError, expectRpcError } from './jsonrpc-parsing.ts'
import { sendAs } from './send.ts'

interface FailedSend {
  jsonrpc: string
  id: unknown
  error: {
    code: number
    message: string
    data: {
      response: {
        timestamp: number
        results: {
          recipientAddress: { uuid: string; number: string }
          groupId?: string
          type: string
          token?: string
        }[]
      }
    }
  }
}

/** Asserts an all-failed send error: exact code and message, the result in `data.response`. */
function expectAllFailed(
  json: unknown,
  code: number,
  message: string,
  id: unknown,
): FailedSend['error']['data']['response'] {
  const answer = json as FailedSend
  expect(new Set(Object.keys(answer))).toEqual(new Set(['error', 'id', 'jsonrpc']))
  expect(answer.id).toEqual(id)
  expect(answer.error.code).toBe(code)
  expect(answer.error.message).toBe(message)
  expect(Object.keys(answer.error.data)).toEqual(['response'])
  const { response } = answer.error.data
  expect(new Set(Object.keys(response))).toEqual(new Set(['results', 'timestamp']))
  expect(Number.isSafeInteger(response.timestamp)).toBe(true)
  expect(response.results.length).toBeGreaterThan(0)
  for (const r of response.results) expect(r.type).not.toBe('SUCCESS')
  return response
}

/** A server 429 as signal-cli passes it on: the whole send fails with -32603. */
export const SERVER_RATE_LIMIT =
  'Failed to send message: [429] Rate limit exceeded: 429 (RateLimitException) (UnexpectedErrorException)'

/** The fail-next-sends-with switch for one such 429. */
const ONE_SERVER_RATE_LIMIT = { n: 1, code: -32603, message: SERVER_RATE_LIMIT }

const LEFT = '+15550000077'

/** A toy where `a` shares `lost` with LEFT (who left Signal) only, and `mixed` with `b` and LEFT. */
const lostMemberToy = (a: string, b: string): string[] => [
  '--account',
  a,
  '--account',
  b,
  '--unregistered',
  LEFT,
  '--group',
  `lost:${a},${LEFT}`,
  '--group',
  `mixed:${a},${b},${LEFT}`,
]

export function registerSendFailureCases(defineCase: DefineCase): void {
  defineCase(
    'toy',
    'a group member who left Signal: UNREGISTERED_FAILURE in a success, -1 with data.response when no one else is left',
    async (t) => {
      const [a, b] = ['+15550000071', '+15550000072']
      await withToy(t, lostMemberToy(a, b), async (toy) => {
        const groups = (await rpcResult(toy.url, 'listGroups', { account: a })) as { id: string; name: string }[]
        const idOf = (name: string): string => groups.find((g) => g.name === name)?.id ?? ''
        const mixed = await sendAs(toy.url, a, { groupId: idOf('mixed'), message: 'contract: mixed' })
        expect(Object.fromEntries(mixed.results.map((r) => [r.recipientAddress.number, r.type]))).toEqual({
          [b]: 'SUCCESS',
          [LEFT]: 'UNREGISTERED_FAILURE',
        })

        const lost = await rpcAnswer(
          toy.url,
          'send',
          { account: a, groupId: idOf('lost'), message: 'contract: lost' },
          'u',
        )
        const response = expectAllFailed(lost.json, -1, 'Failed to send message', 'u')
        expect(response.results).toEqual([
          expect.objectContaining({
            groupId: idOf('lost'),
            type: 'UNREGISTERED_FAILURE',
            recipientAddress: expect.objectContaining({ number: LEFT }),
          }),
        ])

        // A direct recipient is resolved before sending: the whole call fails instead.
        const direct = { account: a, recipient: LEFT, message: 'x' }
        await expectCallError(toy.url, 'send', direct, -1, `The user ${LEFT} is not registered.`, 'd')
        const status = (await rpcResult(toy.url, 'getUserStatus', { account: a, recipient: [LEFT, b] })) as {
          recipient: string
          isRegistered: boolean
        }[]
        expect(status.map((s) => [s.recipient, s.isRegistered])).toEqual([
          [LEFT, false],
          [b, true],
        ])
      })
    },
    {
      timeoutMs: 30_000,
      client: async (t, c) => {
        const [a, b] = ['+15550000171', '+15550000172']
        await withToy(t, lostMemberToy(a, b), async (toy) => {
          const backend = c.backend(a, toy.url)
          const groups = await backend.listGroups()
          const idOf = (name: string): string => groups.find((g) => g.name === name)?.id ?? ''
          const mixed = await backend.sendGroupMessage(idOf('mixed'), 'contract: mixed (client)')
          expect(new Set(mixed.results?.map((r) => r.type))).toEqual(new Set(['SUCCESS', 'UNREGISTERED_FAILURE']))
          // No one left to receive it: the all-failed -1, a refusal (not a network failure) to the sidecar.
          const error = await expectRpcFailure(
            backend.sendGroupMessage(idOf('lost'), 'contract: lost (client)'),
            -1,
            'Failed to send message',
          )
          expect(error.networkFailure).toBe(false)
        })
      },
    },
  )

  defineCase(
    'toy',
    'identity-fail-next-sends per-recipient: a success with one IDENTITY_FAILURE (no token)',
    withReset(async (t) => {
      const { a, groupId } = fixtures(t)
      await fault(t, 'identity-fail-next-sends', { n: 1, mode: 'per-recipient' })
      const result = await sendAs(t.url, a, { groupId, message: 'contract: one untrusted' })
      const failed = result.results.filter((r) => r.type === 'IDENTITY_FAILURE')
      expect(failed).toHaveLength(1)
      expect(failed[0]).not.toHaveProperty('token')
      expect(result.results.some((r) => r.type === 'SUCCESS')).toBe(true)
    }),
    {
      client: withReset(async (t, c) => {
        const { a, groupId } = fixtures(t)
        await fault(t, 'identity-fail-next-sends', { n: 1, mode: 'per-recipient' })
        const result = await c.backend(a).sendGroupMessage(groupId, 'contract: one untrusted (client)')
        expect((result.results ?? []).filter((r) => r.type === 'IDENTITY_FAILURE')).toHaveLength(1)
        expect((result.results ?? []).some((r) => r.type === 'SUCCESS')).toBe(true)
      }),
    },
  )

  defineCase(
    'toy',
    'identity-fail-next-sends all-failed: -4 with the result in data.response, nothing delivered',
    withReset(async (t) => {
      const { a, groupId } = fixtures(t)
      await faultWhileListening(t, 'identity-fail-next-sends', { n: 1 }, async (probe) => {
        const answer = await rpcAnswer(t.url, 'send', { account: a, groupId, message: 'contract: untrusted' }, 4)
        const response = expectAllFailed(answer.json, -4, 'Failed to send message due to untrusted identities', 4)
        for (const r of response.results) {
          expect(r.type).toBe('IDENTITY_FAILURE')
          expect(r.groupId).toBe(groupId)
        }
        // Only one send was failed: the next one goes through, and b's stream never saw the first.
        const after = await sendAs(t.url, a, { groupId, message: 'contract: trusted again' })
        await probe.waitFor((e) => e.json.envelope['timestamp'] === after.timestamp)
        expect(probe.events.some((e) => e.json.envelope['timestamp'] === response.timestamp)).toBe(false)
      })
    }),
    {
      client: withReset(async (t, c) => {
        const { a, groupId } = fixtures(t)
        await fault(t, 'identity-fail-next-sends', { n: 1 })
        const error = await expectRpcFailure(
          c.backend(a).sendGroupMessage(groupId, 'contract: untrusted (client)'),
          -4,
          'Failed to send message due to untrusted identities',
        )
        expect(error.networkFailure).toBe(false)
        expect(error.retryAfterSeconds).toBeUndefined()
      }),
    },
  )

  defineCase(
    'toy',
    'every recipient failed for mixed reasons (identity and rate limit): -1 "Failed to send message" with data.response',
    withReset(async (t) => {
      const { a, groupId } = fixtures(t)
      await fault(t, 'identity-fail-next-sends', { n: 1, mode: 'per-recipient' })
      await fault(t, 'rate-limit-next-sends', { n: 1, retryAfterSeconds: 30, mode: 'all-failed' })
      const answer = await rpcAnswer(t.url, 'send', { account: a, groupId, message: 'contract: mixed failure' }, 'm')
      const response = expectAllFailed(answer.json, -1, 'Failed to send message', 'm')
      expect(new Set(response.results.map((r) => r.type))).toEqual(new Set(['IDENTITY_FAILURE', 'RATE_LIMIT_FAILURE']))
    }),
    {
      client: withReset(async (t, c) => {
        const { a, groupId } = fixtures(t)
        await fault(t, 'identity-fail-next-sends', { n: 1, mode: 'per-recipient' })
        await fault(t, 'rate-limit-next-sends', { n: 1, retryAfterSeconds: 30, mode: 'all-failed' })
        const error = await expectRpcFailure(
          c.backend(a).sendGroupMessage(groupId, 'contract: mixed failure (client)'),
          -1,
          'Failed to send message',
        )
        // -1, not -5: the client reads no pause, and no recipient was a network failure.
        expect(error.retryAfterSeconds).toBeUndefined()
        expect(error.networkFailure).toBe(false)
      }),
    },
  )

  defineCase(
    'toy',
    'fail-next-sends-with answers the given error (a server 429 is -32603) for exactly N sends, nothing sent',
    withReset(async (t) => {
      const { a, groupId } = fixtures(t)
      await fault(t, 'fail-next-sends-with', ONE_SERVER_RATE_LIMIT)
      // Bad input is rejected before anything reaches the server, so it does not use up the fault.
      await expectCallError(t.url, 'send', { account: a, message: 'x' }, -1, 'No recipients given', 8)
      const marker = `contract: 429 ${Date.now()}`
      const answer = await rpcAnswer(t.url, 'send', { account: a, groupId, message: marker }, 9)
      expect(answer.status).toBe(200)
      expectRpcError(answer.json, -32603, SERVER_RATE_LIMIT, 9)
      expect((await toySends(t)).some((s) => s.message === marker)).toBe(false)
      // Only one send was failed.
      expect((await sendAs(t.url, a, { groupId, message: 'contract: after 429' })).results.length).toBeGreaterThan(0)
    }),
    {
      client: withReset(async (t, c) => {
        const { a, groupId } = fixtures(t)
        await fault(t, 'fail-next-sends-with', ONE_SERVER_RATE_LIMIT)
        const limited = c.backend(a).sendGroupMessage(groupId, 'contract: 429 (client)')
        await expectRpcFailure(limited, -32603, SERVER_RATE_LIMIT)
        expect(
          (await c.backend(a).sendGroupMessage(groupId, 'contract: after 429 (client)')).results?.length,
        ).toBeGreaterThan(0)
      }),
    },
  )

  defineCase('toy', 'fail-next-sends-with rejects a non-integer code with 400', async (t) => {
    const bad = await httpCall(t.adminUrl ?? '', '/toy/v1/faults/fail-next-sends-with', {
      method: 'POST',
      body: '{"n":1,"code":1.5,"message":"x"}',
    })
    expect(bad.status).toBe(400)
  })
}
