// The contract against the real signal-cli 0.13.19 holding two registered accounts and two stored
// groups, without the Signal network: every case answerable from the daemon's local state, plus the
// answers of sends that cannot reach Signal. The daemon starts once for the whole file.
import { describe, it } from 'vitest'
import { offlineAccountsSupport, startOfflineAccountsDaemon } from '../src/offline-accounts.ts'
import { describeSignalDaemonContract } from '../src/suite.ts'

const support = offlineAccountsSupport(process.env)
const NAME = 'real signal-cli 0.13.19, offline accounts'

if (support.available) {
  describeSignalDaemonContract(`${NAME} (Java ${support.major})`, {
    tags: ['any', 'account', 'offline'],
    skipReasons: {
      delivery: "needs the Signal network to deliver; this daemon has none (its failed sends are the 'offline' cases)",
      toy: 'fault switches and toy-only behaviour exist only in the toy',
      unreachable: 'linking and registering without network are covered by the accountless real target',
    },
    setupTimeoutMs: 240_000,
    async setup() {
      const daemon = await startOfflineAccountsDaemon()
      return {
        url: daemon.url,
        version: daemon.version,
        accounts: daemon.accounts,
        groupId: daemon.groupId,
        formerGroupId: daemon.formerGroupId,
        keepAliveMs: 15_000,
        teardown: () => daemon.stop(),
      }
    },
  })
} else {
  console.log(`[contract] ${NAME}: skipped, ${support.reason}`)
  describe(`signal-cli daemon contract: ${NAME}`, () => {
    it.skip(`skipped: ${support.reason}`, () => {})
  })
}
