// The contract against a live registered daemon (all cases but the toy's):
//   CONTRACT_SIGNAL_CLI_URL=http://127.0.0.1:8080 CONTRACT_ACCOUNT_A=+… CONTRACT_ACCOUNT_B=+… \
//   CONTRACT_GROUP_ID=<base64> npx vitest run contract-tests/test/live.test.ts
// The daemon must hold both accounts (multi-account mode), both must be in the group, and it should
// run with `--receive-mode on-connection` so messages wait for a stream (daemon-contract.md §5).
import { describe, it } from 'vitest'
import { rpcResult } from '../src/http-probe.ts'
import { describeSignalDaemonContract } from '../src/suite.ts'
import { makeFormerGroup } from '../src/target.ts'

const NAMES = ['CONTRACT_SIGNAL_CLI_URL', 'CONTRACT_ACCOUNT_A', 'CONTRACT_ACCOUNT_B', 'CONTRACT_GROUP_ID'] as const
const missing = NAMES.filter((name) => (process.env[name] ?? '') === '')

if (missing.length === 0) {
  const url = process.env['CONTRACT_SIGNAL_CLI_URL'] ?? ''
  describeSignalDaemonContract('live daemon', {
    tags: ['any', 'account', 'delivery'],
    skipReasons: {
      offline: 'a live daemon reaches Signal (the offline-accounts target covers sends without network)',
      toy: 'fault switches and toy-only behaviour exist only in the toy',
      unreachable: 'a live daemon reaches Signal',
    },
    async setup() {
      const version = ((await rpcResult(url, 'version')) as { version: string }).version
      const [a, b] = [process.env['CONTRACT_ACCOUNT_A'] ?? '', process.env['CONTRACT_ACCOUNT_B'] ?? '']
      return {
        url,
        version,
        accounts: { a, b },
        groupId: process.env['CONTRACT_GROUP_ID'] ?? '',
        // A group `a` left: CONTRACT_FORMER_GROUP_ID, or one made (and left) now.
        formerGroupId:
          (process.env['CONTRACT_FORMER_GROUP_ID'] ?? '') === ''
            ? await makeFormerGroup(url, a, b)
            : (process.env['CONTRACT_FORMER_GROUP_ID'] ?? ''),
        keepAliveMs: 15_000,
        teardown: async () => {},
      }
    },
  })
} else {
  const reason = `set ${missing.join(', ')} to run the contract against a live daemon`
  console.log(`[contract] live daemon: skipped, ${reason}`)
  describe('signal-cli daemon contract: live daemon', () => {
    it.skip(`skipped: ${reason}`, () => {})
  })
}
