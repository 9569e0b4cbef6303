/**
 * Two editors decide on one suggestion at the same moment, each sidecar in a process of its own on
 * the toy: while the toy has no network, Alice and Bob both decide (each answered 200: saved by
 * their own sidecar); when it comes back, the decisions meet and Yjs keeps one of them.
 * - Both accept: both insertions stay; the writer of the one not kept takes it back, so every
 *   replica reads the accepted words once.
 * - One accepts while the other rejects: the acceptance stands (the text changed), written again by
 *   its writer when the rejection was the one kept. Which decision Yjs keeps depends on the writers'
 *   random ids, so the test decides two suggestions each way round; the unit tests in
 *   packages/review/src/concurrent-decisions.test.ts take each path for certain.
 */
import { describe, expect, it } from 'vitest'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, call, libraryEnv, shareAndAccept, startPeopleToy } from './docs-api.ts'
import { poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

type Peer = { url: string; port: number }
const TEXT = '?target=t&kind=text'
const BEFORE = 'Day 2: long hike and a picnic. Day 3: museum and shops.'
const AFTER = 'Day 2: a short walk. Day 3: museum and shops.'
const AFTER_BOTH = 'Day 2: a short walk. Day 3: the market.'
// Offline is short here: the probe's backoff is bounded at 300 ms instead of a minute.
const QUICK_RETRY = { E2E_COL_OFFLINE_PROBE_MAX_MS: '300', E2E_COL_SEND_ATTEMPTS: '3' }

const textOf = async (s: Peer, docId: string): Promise<string> =>
  (await call(s, 'GET', `/v1/docs/${docId}/text${TEXT}`)).json.text as string
const suggestionOf = async (s: Peer, docId: string, id: string) =>
  (
    (await call(s, 'GET', `/v1/docs/${docId}/suggestions`)).json.suggestions as {
      id: string
      status: string
      decidedBy?: number
    }[]
  ).find((x) => x.id === id)
const statusOf = async (s: Peer, docId: string, id: string): Promise<string | undefined> =>
  (await suggestionOf(s, docId, id))?.status
/** Both sidecars hold the same decision (the same writer): the two acceptances met. */
const agreed = async (peers: readonly Peer[], docId: string, id: string): Promise<boolean> => {
  const seen = await Promise.all(peers.map(async (s) => (await suggestionOf(s, docId, id))?.decidedBy))
  return seen.every((w) => w !== undefined && w === seen[0])
}

async function editors() {
  // Every number a full member at once (no pending invitations): both decisions reach both sidecars.
  const toy = await startPeopleToy({ pendingInvites: false })
  const peer = async (account: string): Promise<Peer> => {
    const env = libraryEnv(toy, account, { E2E_COL_MEMBERS_REFRESH_MS: '1000', ...QUICK_RETRY })
    const url = await spawnSidecar(env).ready
    return { url, port: Number(new URL(url).port) }
  }
  const [alice, bob] = await Promise.all([peer(ALICE), peer(BOB)])
  const { docId } = await shareAndAccept(alice, { title: 'Trip plan', members: [BOB] }, [bob])
  const page = await pageOn(docId, alice.url)
  page.edit(BEFORE)
  await poll(async () => (await textOf(bob, docId)) === BEFORE, 'Bob holds the text')
  return { toy, alice, bob, docId }
}

/** Alice suggests replacing `find`; the id, once the suggestion reached Bob. */
async function suggest(alice: Peer, bob: Peer, docId: string, find: string, replace: string): Promise<string> {
  const read = await call(alice, 'GET', `/v1/docs/${docId}/text${TEXT}`)
  const made = await call(alice, 'POST', `/v1/docs/${docId}/suggestions`, {
    body: { base: read.json.base, find, replace, target: { name: 't', kind: 'text' } },
  })
  expect(made.status).toBe(201)
  const id = made.json.id as string
  await poll(async () => (await statusOf(bob, docId, id)) === 'open', 'the suggestion reaches Bob')
  return id
}

const decide = async (s: Peer, docId: string, id: string, verb: 'accept' | 'reject'): Promise<number> =>
  (await call(s, 'POST', `/v1/docs/${docId}/suggestions/${id}/${verb}`, { body: {} })).status

describe('two editors deciding on one suggestion at once', () => {
  it('every replica reads the accepted words once, and the suggestion is accepted everywhere', async () => {
    const { toy, alice, bob, docId } = await editors()
    const id = await suggest(alice, bob, docId, 'long hike and a picnic', 'a short walk')

    toy.faults.setNetworkLoss(true)
    expect(await Promise.all([alice, bob].map((s) => decide(s, docId, id, 'accept')))).toEqual([200, 200])
    // Each holds its own acceptance only: the words once.
    for (const s of [alice, bob]) expect(await textOf(s, docId)).toBe(AFTER)
    toy.faults.setNetworkLoss(false)

    // The two acceptances meet (the words twice for a moment), then the duplicate is taken back.
    for (const s of [alice, bob])
      await poll(
        async () =>
          (await agreed([alice, bob], docId, id)) &&
          (await textOf(s, docId)) === AFTER &&
          (await statusOf(s, docId, id)) === 'accepted',
        'the words once, accepted',
        60_000,
      )
    const page = await pageOn(docId, bob.url)
    await page.until(() => page.doc.getText('t').toString() === AFTER)
  }, 120_000)

  it('one accepts while the other rejects: the acceptance stands on every replica', async () => {
    const { toy, alice, bob, docId } = await editors()
    const first = await suggest(alice, bob, docId, 'long hike and a picnic', 'a short walk')
    const second = await suggest(alice, bob, docId, 'museum and shops', 'the market')

    toy.faults.setNetworkLoss(true)
    const decided = await Promise.all([
      decide(alice, docId, first, 'accept'),
      decide(bob, docId, first, 'reject'),
      decide(bob, docId, second, 'accept'),
      decide(alice, docId, second, 'reject'),
    ])
    expect(decided).toEqual([200, 200, 200, 200])
    toy.faults.setNetworkLoss(false)

    const settled = async (s: Peer): Promise<boolean> =>
      (await textOf(s, docId)) === AFTER_BOTH &&
      (await agreed([alice, bob], docId, first)) &&
      (await agreed([alice, bob], docId, second)) &&
      (await statusOf(s, docId, first)) === 'accepted' &&
      (await statusOf(s, docId, second)) === 'accepted'
    for (const s of [alice, bob]) await poll(() => settled(s), 'both acceptances standing', 60_000)
  }, 120_000)
})
