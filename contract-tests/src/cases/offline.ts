/**
 * A daemon whose accounts cannot reach Signal (daemon-contract.md §6.8): what a send, a group update and
 * a registration lookup answer when the network is down. The messages name the socket error of the
 * moment ("Closed unexpectedly", "Write failed!", "No connection!"), so only the code, the stable
 * prefix and the suffix are compared.
 */
import { expect } from 'vitest'
import { rpcAnswer } from '../http-probe.ts'
import { expectRpcFailure } from '../client-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures } from '../target.ts'
import { expectCallError } from './jsonrpc-parsing.ts'

/** How a group send or change fails without network: only the socket error in the middle varies. */
const UNEXPECTED_SEND_FAILURE = /^Failed to send message: .+ \(UnexpectedErrorException\)$/

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
      const groupSend = { account: a, groupId, message: 'contract: offline group send' }
      await expectCallError(t.url, 'send', groupSend, -32603, UNEXPECTED_SEND_FAILURE)
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        const error = await expectRpcFailure(
          c.backend(a).sendGroupMessage(groupId, 'contract: offline group send (client)'),
          -32603,
          UNEXPECTED_SEND_FAILURE,
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
      const answer = await rpcAnswer(
        t.url,
        'send',
        { account: a, recipient: b, message: 'contract: offline direct send' },
        2,
      )
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
      const rename = { account: a, groupId, name: 'contract: offline rename' }
      await expectCallError(t.url, 'updateGroup', rename, -32603, UNEXPECTED_SEND_FAILURE, 3)
      const listed = (await rpcAnswer(t.url, 'listGroups', { account: a, groupId }, 4)).json as {
        result: { name: string }[]
      }
      expect(listed.result[0]?.name).not.toBe('contract: offline rename')
    },
    {
      client: async (t, c) => {
        const { a, groupId } = fixtures(t)
        await expectRpcFailure(
          c.backend(a).updateGroup(groupId, { name: 'contract: offline rename (client)' }),
          -32603,
          UNEXPECTED_SEND_FAILURE,
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
      const lookup = { account: a, recipient: [b] }
      await expectCallError(t.url, 'getUserStatus', lookup, -3, /^Unable to check if users are registered: /, 5)
    },
  )
}
