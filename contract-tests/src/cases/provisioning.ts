/**
 * The account-free provisioning methods `e2e-col setup` drives (contract.md §6): what a daemon
 * answers before any phone or SMS is involved, and, on a daemon that cannot reach Signal, the
 * failures setup turns into "Signal is unreachable". Observed on signal-cli 0.13.19 without network.
 */
import { expect } from 'vitest'
import { expectRpcFailure } from '../client-probe.ts'
import { rpcAnswer } from '../http-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { expectCallError } from './jsonrpc-parsing.ts'

/** A number no test daemon has registered or started registering. */
const NEVER_REGISTERED = '+15550007777'

/** A well-formed device link URI no daemon is waiting for. */
const UNKNOWN_LINK_URI =
  'sgnl://linkdevice?uuid=AAAAAAAAAAAAAAAAAAAAAA&pub_key=BQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'

/** `verify` without a registration session: signal-cli passes a null session id on. */
const NO_SESSION =
  'Parameter specified as non-null is null: method org.whispersystems.signalservice.api.registration.RegistrationApi.verifyAccount, parameter sessionId (NullPointerException)'

/** `register` on a machine that cannot resolve Signal's host. */
const REGISTER_UNREACHABLE = 'Failed to register: java.net.UnknownHostException: chat.signal.org (PushNetworkException)'

export function registerProvisioningCases(defineCase: DefineCase): void {
  defineCase(
    'any',
    'finishLink refuses a missing, malformed or unknown device link URI with -1',
    async (t) => {
      await expectCallError(t.url, 'finishLink', {}, -1, 'Missing deviceLinkUri.')
      await expectCallError(t.url, 'finishLink', { deviceLinkUri: 'not a uri' }, -1, 'Invalid device link uri.', 2)
      const unknown = { deviceLinkUri: UNKNOWN_LINK_URI, deviceName: 'contract' }
      await expectCallError(t.url, 'finishLink', unknown, -1, 'Unknown device link uri.', 3)
    },
    {
      client: async (_t, c) => {
        // Setup's client always sends a URI; the missing one is a raw-only refusal.
        const setup = c.provisioning()
        await expectRpcFailure(setup.finishLink('not a uri', 'contract', 1_000), -1, 'Invalid device link uri.')
        await expectRpcFailure(setup.finishLink(UNKNOWN_LINK_URI, 'contract', 1_000), -1, 'Unknown device link uri.')
      },
    },
  )

  defineCase(
    'any',
    'verify for a number that never registered is -32603 (no registration session)',
    async (t) => {
      const verify = { account: NEVER_REGISTERED, verificationCode: '123456' }
      await expectCallError(t.url, 'verify', verify, -32603, NO_SESSION, 4)
    },
    {
      client: async (_t, c) => {
        await expectRpcFailure(c.provisioning().verify(NEVER_REGISTERED, '123456'), -32603, NO_SESSION)
      },
    },
  )

  defineCase(
    'unreachable',
    'without a way to Signal, startLink is -3 "Link request error: Connection closed!" and register is -3 naming the host',
    async (t) => {
      if (t.unreachableUrl === undefined) throw new Error('this case needs a daemon that cannot reach Signal')
      const url = await t.unreachableUrl()
      await expectCallError(url, 'startLink', undefined, -3, 'Link request error: Connection closed!', 5)
      const register = (await rpcAnswer(url, 'register', { account: NEVER_REGISTERED }, 6)).json as {
        error?: { code: number; message: string }
      }
      expect(register.error?.code).toBe(-3)
      expect(register.error?.message).toBe(REGISTER_UNREACHABLE)
    },
    {
      timeoutMs: 30_000,
      client: async (t, c) => {
        if (t.unreachableUrl === undefined) throw new Error('this case needs a daemon that cannot reach Signal')
        const setup = c.provisioning(await t.unreachableUrl())
        await expectRpcFailure(setup.startLink(), -3, 'Link request error: Connection closed!')
        await expectRpcFailure(setup.register(NEVER_REGISTERED, {}), -3, REGISTER_UNREACHABLE)
      },
    },
  )
}
