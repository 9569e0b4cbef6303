/**
 * The account-free provisioning methods `e2e-col setup` drives (contract.md §6): what a daemon
 * answers before any phone or SMS is involved, and, on a daemon that cannot reach Signal, the
 * failures setup turns into "Signal is unreachable". Observed on signal-cli 0.13.19 without network.
 */
import { expect } from 'vitest'
import { expectRpcFailure } from '../client-probe.ts'
import { rpcCall } from '../http-probe.ts'
import type { DefineCase } from '../suite.ts'
import { expectRpcError } from './jsonrpc-parsing.ts'

/** A number no test daemon has registered or started registering. */
const NEVER_REGISTERED = '+15550007777'

export function registerProvisioningCases(defineCase: DefineCase): void {
  defineCase(
    'any',
    'finishLink refuses a missing, malformed or unknown device link URI with -1',
    async (t) => {
      expectRpcError(
        (await rpcCall(t.url, { jsonrpc: '2.0', method: 'finishLink', id: 1, params: {} })).json,
        -1,
        'Missing deviceLinkUri.',
        1,
      )
      expectRpcError(
        (await rpcCall(t.url, { jsonrpc: '2.0', method: 'finishLink', id: 2, params: { deviceLinkUri: 'not a uri' } }))
          .json,
        -1,
        'Invalid device link uri.',
        2,
      )
      const unknown = {
        deviceLinkUri:
          'sgnl://linkdevice?uuid=AAAAAAAAAAAAAAAAAAAAAA&pub_key=BQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        deviceName: 'contract',
      }
      expectRpcError(
        (await rpcCall(t.url, { jsonrpc: '2.0', method: 'finishLink', id: 3, params: unknown })).json,
        -1,
        'Unknown device link uri.',
        3,
      )
    },
    {
      client: async (_t, c) => {
        // Setup's client always sends a URI; the missing one is a raw-only refusal.
        const setup = c.provisioning()
        await expectRpcFailure(setup.finishLink('not a uri', 'contract', 1_000), -1, 'Invalid device link uri.')
        await expectRpcFailure(
          setup.finishLink(
            'sgnl://linkdevice?uuid=AAAAAAAAAAAAAAAAAAAAAA&pub_key=BQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
            'contract',
            1_000,
          ),
          -1,
          'Unknown device link uri.',
        )
      },
    },
  )

  defineCase(
    'any',
    'verify for a number that never registered is -32603 (no registration session)',
    async (t) => {
      const answer = await rpcCall(t.url, {
        jsonrpc: '2.0',
        method: 'verify',
        id: 4,
        params: { account: NEVER_REGISTERED, verificationCode: '123456' },
      })
      expectRpcError(
        answer.json,
        -32603,
        'Parameter specified as non-null is null: method org.whispersystems.signalservice.api.registration.RegistrationApi.verifyAccount, parameter sessionId (NullPointerException)',
        4,
      )
    },
    {
      client: async (_t, c) => {
        await expectRpcFailure(
          c.provisioning().verify(NEVER_REGISTERED, '123456'),
          -32603,
          'Parameter specified as non-null is null: method org.whispersystems.signalservice.api.registration.RegistrationApi.verifyAccount, parameter sessionId (NullPointerException)',
        )
      },
    },
  )

  defineCase(
    'unreachable',
    'without a way to Signal, startLink is -3 "Link request error: Connection closed!" and register is -3 naming the host',
    async (t) => {
      if (t.unreachableUrl === undefined) throw new Error('this case needs a daemon that cannot reach Signal')
      const url = await t.unreachableUrl()
      expectRpcError(
        (await rpcCall(url, { jsonrpc: '2.0', method: 'startLink', id: 5 })).json,
        -3,
        'Link request error: Connection closed!',
        5,
      )
      const register = (
        await rpcCall(url, { jsonrpc: '2.0', method: 'register', id: 6, params: { account: NEVER_REGISTERED } })
      ).json as { error?: { code: number; message: string } }
      expect(register.error?.code).toBe(-3)
      expect(register.error?.message).toBe(
        'Failed to register: java.net.UnknownHostException: chat.signal.org (PushNetworkException)',
      )
    },
    {
      timeoutMs: 30_000,
      client: async (t, c) => {
        if (t.unreachableUrl === undefined) throw new Error('this case needs a daemon that cannot reach Signal')
        const setup = c.provisioning(await t.unreachableUrl())
        await expectRpcFailure(setup.startLink(), -3, 'Link request error: Connection closed!')
        await expectRpcFailure(
          setup.register(NEVER_REGISTERED, {}),
          -3,
          'Failed to register: java.net.UnknownHostException: chat.signal.org (PushNetworkException)',
        )
      },
    },
  )
}
