/**
 * Account routing in multi-account mode (daemon-contract.md §6.3), and the single-account `-a` mode.
 */
import { expect } from 'vitest'
import { httpCall, rpcAnswer, rpcCall } from '../http-probe.ts'
import { expectRpcFailure } from '../client-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, withToy } from '../target.ts'
import { unknownGroupId } from './send.ts'
import { expectCallError } from './jsonrpc-parsing.ts'

/** A well-formed number that no test daemon has as an account. */
export const UNKNOWN_NUMBER = '+15550009999'

export function registerAccountRoutingCases(defineCase: DefineCase): void {
  defineCase(
    'any',
    'a per-account method without account is -32602 "Method requires valid account parameter" (not exactly one account)',
    async (t) => {
      for (const method of ['send', 'listGroups', 'updateGroup', 'getUserStatus'])
        await expectCallError(t.url, method, { message: 'x' }, -32602, 'Method requires valid account parameter', 7)
    },
    {
      client: async (_t, c) => {
        // A backend without an account sends none: a multi-account daemon refuses every per-account call.
        const none = c.backend()
        await expectRpcFailure(none.listGroups(), -32602, 'Method requires valid account parameter')
        await expectRpcFailure(
          none.sendGroupMessage(unknownGroupId(), 'x'),
          -32602,
          'Method requires valid account parameter',
        )
        await expectRpcFailure(none.listContacts(), -32602, 'Method requires valid account parameter')
      },
    },
  )

  defineCase(
    'any',
    'an unknown, empty or non-string account is -32602 "Specified account does not exist", even on version',
    async (t) => {
      for (const account of [UNKNOWN_NUMBER, '', 5, [UNKNOWN_NUMBER]]) {
        for (const method of ['listGroups', 'version'])
          await expectCallError(t.url, method, { account }, -32602, 'Specified account does not exist')
      }
    },
    {
      client: async (t, c) => {
        const stranger = c.backend(UNKNOWN_NUMBER)
        await expectRpcFailure(stranger.listGroups(), -32602, 'Specified account does not exist')
        await expectRpcFailure(
          stranger.getAttachment('x', unknownGroupId()),
          -32602,
          'Specified account does not exist',
        )
        // The client sends `version` without the account, so a stranger's backend still reads it.
        expect(await stranger.version()).toBe(t.version)
      },
    },
  )

  defineCase('any', 'method lookup comes before routing: unknown method with unknown account is -32601', async (t) => {
    await expectCallError(t.url, 'nope', { account: UNKNOWN_NUMBER }, -32601, 'Method not implemented')
  })

  defineCase(
    'any',
    "per-account commands beyond the sidecar's set still route account first: -32602 before any -32601",
    async (t) => {
      const stranger = { account: UNKNOWN_NUMBER }
      for (const method of [
        'sendTyping',
        'sendReceipt',
        'listContacts',
        'listIdentities',
        'trust',
        'updateProfile',
        'remoteDelete',
        'submitRateLimitChallenge',
      ]) {
        await expectCallError(t.url, method, undefined, -32602, 'Method requires valid account parameter')
        await expectCallError(t.url, method, stranger, -32602, 'Specified account does not exist', 2)
      }
      // Registration commands need an explicit account: no single-account fallback.
      await expectCallError(t.url, 'register', undefined, -32602, 'Method requires valid account parameter', 3)
      // Socket-only and CLI-only commands are not commands over HTTP at all.
      for (const method of ['subscribeReceive', 'daemon', 'link'])
        await expectCallError(t.url, method, stranger, -32601, 'Method not implemented', 4)
    },
  )

  defineCase('account', 'a per-account command with a registered account passes routing (never -32602)', async (t) => {
    const { a } = fixtures(t)
    // listIdentities only reads local state: any routed account gets its list.
    const answer = (await rpcAnswer(t.url, 'listIdentities', { account: a })).json as { error?: { code: number } }
    expect(answer.error?.code).not.toBe(-32602)
  })

  defineCase(
    'any',
    'listAccounts needs no account and ignores an unknown one',
    async (t) => {
      const plain = await rpcAnswer(t.url, 'listAccounts')
      const list = (plain.json as { result: { number: string }[] }).result
      expect(Array.isArray(list)).toBe(true)
      for (const entry of list) expect(entry.number).toMatch(/^\+\d+$/)
      const ignored = await rpcAnswer(t.url, 'listAccounts', { account: UNKNOWN_NUMBER }, 2)
      expect((ignored.json as { result: unknown }).result).toEqual(list)
    },
    {
      client: async (_t, c) => {
        const listed = await c.backend().listAccounts()
        expect(Array.isArray(listed)).toBe(true)
        for (const number of listed ?? []) expect(number).toMatch(/^\+\d+$/)
        // Setup reads the same list through its own client; a backend bound to an account that is
        // not served still gets the daemon's list (the chat loop checks its account against it).
        expect(await c.provisioning().listAccounts()).toEqual(listed)
        expect(await c.backend(UNKNOWN_NUMBER).listAccounts()).toEqual(listed)
      },
    },
  )

  defineCase('any', 'a routing failure in a notification is dropped silently (201)', async (t) => {
    const answer = await rpcCall(t.url, { jsonrpc: '2.0', method: 'listGroups', params: { account: UNKNOWN_NUMBER } })
    expect(answer.status).toBe(201)
  })

  defineCase(
    'account',
    'listAccounts lists the registered accounts as {number}',
    async (t) => {
      const { a, b } = fixtures(t)
      const answer = await rpcAnswer(t.url, 'listAccounts')
      const numbers = (answer.json as { result: { number: string }[] }).result.map((e) => e.number)
      expect(numbers).toEqual(expect.arrayContaining([a, b]))
    },
    {
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        expect(await c.backend().listAccounts()).toEqual(expect.arrayContaining([a, b]))
        expect(await c.provisioning().listAccounts()).toEqual(expect.arrayContaining([a, b]))
      },
    },
  )

  defineCase(
    'account',
    'a known account is routed and removed from the params',
    async (t) => {
      const { a, groupId } = fixtures(t)
      const answer = await rpcAnswer(t.url, 'listGroups', { account: a, groupId })
      const groups = (answer.json as { result: { id: string }[] }).result
      expect(groups.map((g) => g.id)).toEqual([groupId])
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        expect((await c.backend(a).listGroups(groupId)).map((g) => g.id)).toEqual([groupId])
      },
    },
  )

  defineCase(
    'toy',
    'single-account mode ignores account params, has no listAccounts, and no admin route without --faults',
    async (t) => {
      await withToy(t, ['--single-account', '+15550000042'], async (single) => {
        const ignored = await rpcAnswer(single.url, 'listGroups', { account: UNKNOWN_NUMBER })
        expect((ignored.json as { result: unknown }).result).toEqual([])
        const noAccount = await rpcAnswer(single.url, 'listGroups', undefined, 2)
        expect((noAccount.json as { result: unknown }).result).toEqual([])
        await expectCallError(single.url, 'listAccounts', undefined, -32601, 'Method not implemented', 3)
        // The events `account` query is ignored in single-account mode too.
        const events = await fetch(new URL(`/api/v1/events?account=${encodeURIComponent(UNKNOWN_NUMBER)}`, single.url))
        expect(events.status).toBe(200)
        await events.body?.cancel()
        expect((await httpCall(single.url, '/toy/v1/faults/reset', { method: 'POST', body: '{}' })).status).toBe(404)
      })
    },
  )
}
