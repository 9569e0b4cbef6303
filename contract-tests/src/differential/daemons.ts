/**
 * The two daemons of the differential: the offline-accounts real signal-cli 0.13.19 and a toy set up
 * the same way (the same two accounts, the same two groups under the same ids, playing 0.13.19,
 * Signal unreachable), each with the names of its ACIs.
 */
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { rpcResult } from '../http-probe.ts'
import { startOfflineAccountsDaemon, type OfflineAccountsDaemon } from '../offline-accounts.ts'
import type { AciNames } from './normalize.ts'
import type { DifferentialFixture } from './requests.ts'

export interface DaemonPair {
  fixture: DifferentialFixture
  real: { url: string; acis: AciNames; daemon: OfflineAccountsDaemon }
  toy: { url: string; acis: AciNames; daemon: ToySignal }
  stop(): Promise<void>
}

/** Starts both; the toy mirrors the real fixture's state. */
export async function startDaemonPair(): Promise<DaemonPair> {
  const real = await startOfflineAccountsDaemon()
  const fixture = { ...real.accounts, groupId: real.groupId, formerGroupId: real.formerGroupId }
  const { a, b } = fixture
  let toy: ToySignal
  try {
    toy = await createToySignal({
      accounts: [a, b],
      faults: true,
      offline: true,
      signalCliVersion: real.version,
      groups: [{ name: 'contract', members: [a, b], id: fixture.groupId }],
      restoreGroups: [
        {
          id: fixture.formerGroupId,
          name: 'contract former',
          description: '',
          revision: 0,
          expiration: 0,
          members: [b],
          admins: [b],
          formerMembers: [a],
          pending: [],
          requesting: [],
        },
      ],
    })
  } catch (error) {
    await real.stop()
    throw error
  }
  // The offline fixture cannot reach Signal: neither can the toy.
  toy.faults.setNetworkLoss(true)
  const listed = (await rpcResult(toy.url, 'listGroups', { account: a, groupId: fixture.groupId })) as {
    members: { number: string; uuid: string }[]
  }[]
  const toyAci = (n: string): string => listed[0]?.members.find((m) => m.number === n)?.uuid ?? ''
  return {
    fixture,
    real: {
      url: real.url,
      acis: new Map([
        [real.acis.a, '<aci a>'],
        [real.acis.b, '<aci b>'],
      ]),
      daemon: real,
    },
    toy: {
      url: toy.url,
      acis: new Map([
        [toyAci(a), '<aci a>'],
        [toyAci(b), '<aci b>'],
      ]),
      daemon: toy,
    },
    stop: async () => {
      await Promise.all([real.stop(), toy.close()])
    },
  }
}
