/**
 * Why a document is gone survives a restart: Alice removes Bob from one document and deletes
 * another for everyone; Bob's sidecar restarts on the same folder and still lists the first as
 * removed by Alice and the second as deleted for everyone by her (before, both were kept in memory
 * only: after a restart his page could no longer say "Alice stopped sharing this document with you").
 */
import { describe, expect, it } from 'vitest'
import type { RunningSidecar } from '../src/index.ts'
import { ALICE, BOB, call, librarySidecar, startPeopleToy } from './docs-api.ts'
import { poll, tempDataDir } from './harness.ts'

interface Card {
  docId: string
  state: string
  deletedForEveryone?: true
  removedBy?: { number: string }
}

const card = async (s: RunningSidecar, docId: string): Promise<Card | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as Card[]).find((d) => d.docId === docId)

async function shared(alice: RunningSidecar, bob: RunningSidecar, title: string): Promise<string> {
  const { docId } = (await call(alice, 'POST', '/v1/docs', { body: { title, members: [BOB] } })).json as {
    docId: string
  }
  await poll(
    async () => ((await call(bob, 'GET', '/v1/invites')).json.invites as { id: string }[]).some((i) => i.id === docId),
    `the invitation to ${title}`,
  )
  expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
  return docId
}

describe('a removal after a restart', () => {
  it('still names who removed this account, and that a document was deleted for everyone', async () => {
    const toy = await startPeopleToy({ signalCliVersion: '0.14.8' })
    const dataDir = tempDataDir()
    const alice = await librarySidecar(toy, ALICE)
    const first = await librarySidecar(toy, BOB, { E2E_COL_DATA_DIR: dataDir })
    const removed = await shared(alice, first, 'Trip plan')
    const deleted = await shared(alice, first, 'Old notes')

    expect((await call(alice, 'POST', `/v1/docs/${removed}/members`, { body: { remove: [BOB] } })).status).toBe(200)
    expect((await call(alice, 'POST', `/v1/docs/${deleted}/delete-for-everyone`, { body: {} })).status).toBe(200)
    await poll(async () => (await card(first, removed))?.removedBy?.number === ALICE, 'Bob removed by Alice')
    await poll(async () => (await card(first, deleted))?.deletedForEveryone === true, 'the document deleted')
    await first.close()

    const second = await librarySidecar(toy, BOB, { E2E_COL_DATA_DIR: dataDir })
    expect(await card(second, removed)).toMatchObject({ state: 'removed', removedBy: { number: ALICE } })
    expect((await card(second, removed))?.deletedForEveryone).toBeUndefined()
    expect(await card(second, deleted)).toMatchObject({
      state: 'removed',
      deletedForEveryone: true,
      removedBy: { number: ALICE },
    })

    // Forgetting a removed document forgets why it went.
    expect((await call(second, 'DELETE', `/v1/docs/${removed}`, { body: {} })).status).toBe(204)
    expect(await card(second, removed)).toBeUndefined()
  }, 60_000)
})
