/**
 * Two editors accept one suggestion at the same moment, each sidecar in a process of its own on
 * the toy: while the toy has no network, Alice and Bob both accept (each answered 200: saved by
 * their own sidecar); when it comes back, the two acceptances meet. Yjs keeps one decision and
 * both insertions; the writer of the other one takes it back, so every replica reads the accepted
 * words once and the suggestion is accepted everywhere.
 */
import { createToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it, onTestFinished } from 'vitest'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, BOB, call, libraryEnv } from './docs-api.ts'
import { poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

type Peer = { url: string; port: number }
const TEXT = '?target=t&kind=text'
const BEFORE = 'Day 2: long hike and a picnic.'
const AFTER = 'Day 2: a short walk.'
// Offline is short here: the probe's backoff is bounded at 300 ms instead of a minute.
const QUICK_RETRY = { E2E_COL_OFFLINE_PROBE_MAX_MS: '300', E2E_COL_SEND_ATTEMPTS: '3' }

const textOf = async (s: Peer, docId: string): Promise<string> =>
  (await call(s, 'GET', `/v1/docs/${docId}/text${TEXT}`)).json.text as string
const statusOf = async (s: Peer, docId: string, id: string): Promise<string | undefined> =>
  ((await call(s, 'GET', `/v1/docs/${docId}/suggestions`)).json.suggestions as { id: string; status: string }[]).find(
    (x) => x.id === id,
  )?.status

async function editors() {
  const toy = await createToySignal({
    accounts: [ALICE, BOB],
    names: { [ALICE]: 'Alice', [BOB]: 'Bob' },
    faults: true,
    keepAliveMs: 1000,
  })
  onTestFinished(() => toy.close())
  const peer = async (account: string): Promise<Peer> => {
    const env = libraryEnv(toy, account, { E2E_COL_MEMBERS_REFRESH_MS: '1000', ...QUICK_RETRY })
    const url = await spawnSidecar(env).ready
    return { url, port: Number(new URL(url).port) }
  }
  const [alice, bob] = await Promise.all([peer(ALICE), peer(BOB)])
  const created = await call(alice, 'POST', '/v1/docs', { body: { title: 'Trip plan', members: [BOB] } })
  expect(created.status).toBe(201)
  const docId = created.json.docId as string
  await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 1, 'the invitation')
  expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
  const page = await pageOn(docId, alice.url)
  page.edit(BEFORE)
  await poll(async () => (await textOf(bob, docId)) === BEFORE, 'Bob holds the text')
  return { toy, alice, bob, docId }
}

describe('two editors accepting one suggestion at once', () => {
  it('every replica reads the accepted words once, and the suggestion is accepted everywhere', async () => {
    const { toy, alice, bob, docId } = await editors()
    const read = await call(alice, 'GET', `/v1/docs/${docId}/text${TEXT}`)
    const made = await call(alice, 'POST', `/v1/docs/${docId}/suggestions`, {
      body: {
        base: read.json.base,
        find: 'long hike and a picnic',
        replace: 'a short walk',
        target: { name: 't', kind: 'text' },
      },
    })
    expect(made.status).toBe(201)
    const id = made.json.id as string
    await poll(async () => (await statusOf(bob, docId, id)) === 'open', 'the suggestion reaches Bob')

    toy.faults.setNetworkLoss(true)
    const accepts = await Promise.all(
      [alice, bob].map((s) => call(s, 'POST', `/v1/docs/${docId}/suggestions/${id}/accept`, { body: {} })),
    )
    expect(accepts.map((a) => a.status)).toEqual([200, 200])
    // Each holds its own acceptance only: the words once.
    for (const s of [alice, bob]) expect(await textOf(s, docId)).toBe(AFTER)
    toy.faults.setNetworkLoss(false)

    // The two acceptances meet (the words twice for a moment), then the duplicate is taken back.
    for (const s of [alice, bob])
      await poll(
        async () => (await textOf(s, docId)) === AFTER && (await statusOf(s, docId, id)) === 'accepted',
        'the words once, accepted',
        60_000,
      )
    const page = await pageOn(docId, bob.url)
    await page.until(() => page.doc.getText('t').toString() === AFTER)
  }, 120_000)
})
