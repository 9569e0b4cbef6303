/**
 * Undo one person's changes is exact or says it is not, end to end on the toy with three
 * sidecars: Carol, given the document after Bob wrote in it, cannot undo Bob's changes since before
 * she joined (her sidecar never saw them one by one): 400 `HISTORY_TOO_OLD` with `oldest`, the
 * oldest moment it can undo from, and nothing changed; from `oldest` the undo is exact.
 */
import { describe, expect, it } from 'vitest'
import { ALICE, BOB, CAROL, call, librarySidecar, startPeopleToy } from './docs-api.ts'
import { poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

const QUICK = { E2E_COL_HISTORY_QUIET_MS: '150' }

async function accept(s: { port: number }, docId: string): Promise<void> {
  await poll(
    async () => (await call(s, 'GET', '/v1/invites')).json.invites.some((i: { id: string }) => i.id === docId),
    'the invitation',
  )
  expect((await call(s, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
}

describe('undoing a person beyond kept history', () => {
  it('is refused with HISTORY_TOO_OLD and the oldest time that can be undone; from then on it is exact', async () => {
    const toy = await startPeopleToy()
    const [alice, bob, carol] = await Promise.all([
      librarySidecar(toy, ALICE, QUICK),
      librarySidecar(toy, BOB, QUICK),
      librarySidecar(toy, CAROL, QUICK),
    ])
    const created = await call(alice, 'POST', '/v1/docs', { body: { title: 'Trip plan', members: [BOB] } })
    const docId = (created.json as { docId: string }).docId
    await accept(bob, docId)
    const bobPage = await pageOn(docId, bob.url)
    const beforeCarol = Date.now()
    bobPage.edit('Bob: Lisbon.')
    await poll(
      async () => (await call(alice, 'GET', `/v1/docs/${docId}/versions`)).json.versions.length > 0,
      'a version at Alice',
    )

    expect((await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { add: [CAROL] } })).status).toBe(200)
    await accept(carol, docId)
    const carolPage = await pageOn(docId, carol.url)
    await carolPage.until(() => carolPage.text === 'Bob: Lisbon.')
    bobPage.edit(' Porto.')
    await carolPage.until(() => carolPage.text === 'Bob: Lisbon. Porto.')

    // Carol's sidecar has Bob's first line only as relayed content: undoing him since before she
    // joined would leave it, so it is refused, naming the oldest moment it can undo from.
    const refused = await call(carol, 'POST', `/v1/docs/${docId}/revert`, { body: { author: BOB, since: beforeCarol } })
    expect([refused.status, refused.json.error.code]).toEqual([400, 'HISTORY_TOO_OLD'])
    const oldest = refused.json.error.oldest as number
    const listed = (await call(carol, 'GET', `/v1/docs/${docId}/versions?limit=500`)).json.versions as { at: number }[]
    expect(listed.map((v) => v.at)).toContain(oldest)
    expect(oldest).toBeGreaterThan(beforeCarol)
    expect(refused.json.error.message).toContain(new Date(oldest).toISOString())
    expect(carolPage.text).toBe('Bob: Lisbon. Porto.')

    // From that moment the undo is exact: Bob's words after it go, the rest stays, on every page.
    const undone = await call(carol, 'POST', `/v1/docs/${docId}/revert`, { body: { author: BOB, since: oldest } })
    expect(undone.status).toBe(200)
    await carolPage.until(() => carolPage.text === 'Bob: Lisbon.')
    await bobPage.until(() => bobPage.text === 'Bob: Lisbon.')
  }, 60_000)
})
