// The contract against the toy, spawned as a real process on a free port.
import { rpcResult } from '../src/http-probe.ts'
import { describeSignalDaemonContract } from '../src/suite.ts'
import { makeFormerGroup } from '../src/target.ts'
import { spawnToyProcess } from '../src/toy-process.ts'

const A = '+15550000001'
const B = '+15550000002'
// A third member that is not a local account: its results exist but nothing is delivered.
const C = '+15550000003'
const KEEP_ALIVE_MS = 1_000

describeSignalDaemonContract('toy', {
  tags: ['any', 'account', 'delivery', 'toy', 'unreachable'],
  skipReasons: {
    offline:
      'the toy always reaches its own network; its fault switches cover failed sends (faults.ts, send-failures.ts)',
  },
  async setup() {
    const toy = await spawnToyProcess([
      '--account',
      A,
      '--account',
      B,
      '--group',
      `contract:${A},${B},${C}`,
      '--faults',
      // The newest release the toy plays, so the version-aware cases (terminateGroup) run in full.
      '--signal-cli-version',
      '0.14.8-toy',
      '--keep-alive-ms',
      String(KEEP_ALIVE_MS),
    ])
    const groupId = /group "contract" id (\S+)/.exec(toy.stdout())?.[1] ?? (await groupIdFromDaemon(toy.url))
    const version = ((await rpcResult(toy.url, 'version')) as { version: string }).version
    const spawned: { stop(): Promise<void> }[] = []
    // One `--offline` toy serves every unreachable run (raw and through the client).
    let offline: Promise<string> | undefined
    return {
      url: toy.url,
      version,
      accounts: { a: A, b: B },
      groupId,
      formerGroupId: await makeFormerGroup(toy.url, A, B),
      adminUrl: toy.url,
      keepAliveMs: KEEP_ALIVE_MS,
      async spawnToy(args) {
        const extra = await spawnToyProcess(args)
        spawned.push(extra)
        return extra
      },
      unreachableUrl() {
        offline ??= spawnToyProcess(['--offline']).then((offlineToy) => {
          spawned.push(offlineToy)
          return offlineToy.url
        })
        return offline
      },
      async teardown() {
        await Promise.all([toy.stop(), ...spawned.map((s) => s.stop())])
      },
    }
  },
})

async function groupIdFromDaemon(url: string): Promise<string> {
  const groups = (await rpcResult(url, 'listGroups', { account: A })) as { id: string }[]
  const id = groups[0]?.id
  if (id === undefined) throw new Error('the toy printed no group and lists none')
  return id
}
