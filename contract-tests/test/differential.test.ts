// The toy against the real signal-cli 0.13.19 (offline accounts): the same raw request to both, the
// answers compared whole once the explained differences are set aside (src/differential/normalize.ts).
// Every account-level call the sidecar, the chat loop and setup make is here, with its refusals.
// One real daemon for the file; skipped, with the reason printed, without a JDK 24+.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpSignalBackend, SignalRpcError } from '@e2e-col/signal-cli'
import { resolvesSignalHost } from '@e2e-col/signal-cli-runtime'
import { rpcAnswer } from '../src/http-probe.ts'
import { startRecordingProxy } from '../src/recording-proxy.ts'
import { startDaemonPair, type DaemonPair } from '../src/differential/daemons.ts'
import { normalizeAnswer } from '../src/differential/normalize.ts'
import { differentialRequests, unreachableRequests, type DifferentialFixture } from '../src/differential/requests.ts'
import { OFFLINE_ACCOUNT_A, OFFLINE_ACCOUNT_B, offlineAccountsSupport } from '../src/offline-accounts.ts'

const support = offlineAccountsSupport(process.env)
// Setup's calls to Signal's servers are compared only where they cannot reach them (as here).
const reachesSignal = await resolvesSignalHost()
if (reachesSignal)
  console.log('[contract] differential: startLink and register skipped, this machine resolves chat.signal.org')
const NAME = 'toy versus real signal-cli 0.13.19 (offline accounts): same request, same answer'

// Names only: the ids are the real fixture's, known once it started.
const NAMES: DifferentialFixture = { a: OFFLINE_ACCOUNT_A, b: OFFLINE_ACCOUNT_B, groupId: 'G', formerGroupId: 'F' }

if (support.available) {
  describe(NAME, () => {
    let pair: DaemonPair
    beforeAll(async () => {
      pair = await startDaemonPair()
    }, 240_000)
    afterAll(async () => {
      await pair?.stop()
    })

    differentialRequests(NAMES).forEach((shape, index) => {
      it(`${shape.name} (${shape.method})`, async () => {
        const request = differentialRequests(pair.fixture)[index]
        if (request === undefined) throw new Error('request lists differ')
        const real = await rpcAnswer(pair.real.url, request.method, request.params, index)
        const toy = await rpcAnswer(pair.toy.url, request.method, request.params, index)
        expect(normalizeAnswer(request.method, toy.json, pair.toy.acis)).toEqual(
          normalizeAnswer(request.method, real.json, pair.real.acis),
        )
      })
    })

    for (const request of unreachableRequests()) {
      it.skipIf(reachesSignal)(`${request.name} (${request.method}), Signal unreachable`, async () => {
        const real = await rpcAnswer(pair.real.url, request.method, request.params, 1)
        const toy = await rpcAnswer(pair.toy.url, request.method, request.params, 1)
        expect(normalizeAnswer(request.method, toy.json, pair.toy.acis)).toEqual(
          normalizeAnswer(request.method, real.json, pair.real.acis),
        )
      })
    }

    it('the production client in machine-traffic mode sends no noUrgent to the real 0.13.19 (it predates the flag)', async () => {
      const proxy = await startRecordingProxy(pair.real.url)
      const backend = createHttpSignalBackend({
        url: proxy.url,
        account: pair.fixture.a,
        timeoutMs: 30_000,
        streamIdleMs: 60_000,
        noUrgent: true,
      })
      try {
        // Offline, the send itself fails (-32603); what matters is what reached the daemon.
        await expect(backend.sendGroupMessage(pair.fixture.groupId, 'machine traffic')).rejects.toBeInstanceOf(
          SignalRpcError,
        )
        const bodies = proxy.rpcBodies() as { method: string; params?: Record<string, unknown> }[]
        expect(bodies.map((b) => b.method)).toEqual(['version', 'send'])
        expect(bodies[1]?.params).toEqual({
          groupId: pair.fixture.groupId,
          message: 'machine traffic',
          account: pair.fixture.a,
        })
      } finally {
        await backend.close()
        await proxy.close()
      }
    })
  })
} else {
  console.log(`[contract] ${NAME}: skipped, ${support.reason}`)
  describe(NAME, () => {
    it.skip(`skipped: ${support.reason}`, () => {})
  })
}
