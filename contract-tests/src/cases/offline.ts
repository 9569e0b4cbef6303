/**
 * A daemon whose accounts cannot reach Signal (daemon-contract.md §6.8): what a send, a group update and
 * a registration lookup answer when the network is down. The messages name the socket error of the
 * moment ("Closed unexpectedly", "Write failed!", "No connection!"), so only the code, the stable
 * prefix and the suffix are compared.
 */
import { expect } from 'vitest'
import { rpcCall } from '../http-probe.ts'
import { expectRpcFailure } from '../client-probe.ts'
import type { DefineCase } from '../suite.ts'
import { fixtures } from '../target.ts'
import { expectRpcError } from './jsonrpc-parsing.ts'

interface FailedSend {
  error: {
    code: number
    message: string
    data: { response: { timestamp: number; results: { recipientAddress: { number: string }; type: string }[] } }
  }
}

export function registerOfflineCases(defineCase: DefineCase): void {
  defineCase(
    'offline',
    'a group send without network is -32603 "Failed to send message: … (UnexpectedErrorException)", no result',
    async (t) => {
      const { a, groupId } = fixtures(t)
      const answer = await rpcCall(t.url, {
        jsonrpc: '2.0',
        method: 'send',
        id: 1,
        params: { account: a, groupId, message: 'contract: offline group send' },
      })
      expectRpcError(answer.json, -32603, /^Failed to send message: .+ \(UnexpectedErrorException\)$/, 1)
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        const error = await expectRpcFailure(
          c.backend(a).sendGroupMessage(groupId, 'contract: offline group send (client)'),
          -32603,
          /^Failed to send message: .+ \(UnexpectedErrorException\)$/,
        )
        // A group send without network carries no per-recipient results: nothing says NETWORK_FAILURE.
        expect(error.networkFailure).toBe(false)
      },
    },
  )

  defineCase(
    'offline',
    'a direct send without network is -1 "Failed to send message" with NETWORK_FAILURE results in data.response',
    async (t) => {
      const { a, b } = fixtures(t)
      const answer = await rpcCall(t.url, {
        jsonrpc: '2.0',
        method: 'send',
        id: 2,
        params: { account: a, recipient: b, message: 'contract: offline direct send' },
      })
      const failed = answer.json as FailedSend
      expect(failed.error.code).toBe(-1)
      expect(failed.error.message).toBe('Failed to send message')
      expect(Number.isSafeInteger(failed.error.data.response.timestamp)).toBe(true)
      expect(failed.error.data.response.results.map((r) => [r.recipientAddress.number, r.type])).toEqual([
        [b, 'NETWORK_FAILURE'],
      ])
    },
  )

  defineCase(
    'offline',
    'a group change without network is -32603 "Failed to send message: …"; the group is left unchanged',
    async (t) => {
      const { a, groupId } = fixtures(t)
      const answer = await rpcCall(t.url, {
        jsonrpc: '2.0',
        method: 'updateGroup',
        id: 3,
        params: { account: a, groupId, name: 'contract: offline rename' },
      })
      expectRpcError(answer.json, -32603, /^Failed to send message: .+ \(UnexpectedErrorException\)$/, 3)
      const listed = (
        await rpcCall(t.url, { jsonrpc: '2.0', method: 'listGroups', id: 4, params: { account: a, groupId } })
      ).json as { result: { name: string }[] }
      expect(listed.result[0]?.name).not.toBe('contract: offline rename')
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        await expectRpcFailure(
          c.backend(a).updateGroup(groupId, { name: 'contract: offline rename (client)' }),
          -32603,
          /^Failed to send message: .+ \(UnexpectedErrorException\)$/,
        )
        expect((await c.backend(a).listGroups(groupId))[0]?.name).not.toBe('contract: offline rename (client)')
      },
    },
  )

  defineCase(
    'offline',
    'getUserStatus without network is -3 "Unable to check if users are registered: …"',
    async (t) => {
      const { a, b } = fixtures(t)
      const answer = await rpcCall(t.url, {
        jsonrpc: '2.0',
        method: 'getUserStatus',
        id: 5,
        params: { account: a, recipient: [b] },
      })
      expectRpcError(answer.json, -3, /^Unable to check if users are registered: /, 5)
    },
  )
}
