/**
 * Someone a document is shared with is shown "invited" until their sidecar is heard in the
 * document's group: Signal lists a person whose profile it knows as a full member at once, so
 * Alice's card said "with Bob" before Bob had accepted anything. What was heard is kept, so a
 * restart does not make Bob "invited" again; removing him forgets it.
 */
import { createToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ALICE, BOB, call, librarySidecar, rpc } from './docs-api.ts'
import { poll, tempDataDir } from './harness.ts'

type Person = { number: string; status: string }
const statusOf = async (s: { port: number }, docId: string, number: string): Promise<string | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as { docId: string; members: Person[] }[])
    .find((d) => d.docId === docId)
    ?.members.find((m) => m.number === number)?.status

describe('a person shared with', () => {
  it('is invited until their sidecar is heard, then a member, also after a restart, and invited again once removed', async () => {
    // Without pending invites the toy adds every number as a full member at once, as Signal does
    // for a person whose profile it has.
    const toy = await createToySignal({
      accounts: [ALICE, BOB],
      names: { [ALICE]: 'Alice', [BOB]: 'Bob' },
      faults: true,
      keepAliveMs: 1000,
    })
    onTestFinished(() => toy.close())
    const dataDir = tempDataDir()
    const alice = await librarySidecar(toy, ALICE, { E2E_COL_DATA_DIR: dataDir })
    const bob = await librarySidecar(toy, BOB)
    const { docId, groupId } = (await call(alice, 'POST', '/v1/docs', { body: { title: 'Trip plan', members: [BOB] } }))
      .json as { docId: string; groupId: string }
    await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 1, "Bob's invitation")
    const listed = (await rpc(toy.url, 'listGroups', { account: ALICE })).find((g: any) => g.id === groupId)
    expect(JSON.stringify(listed.members)).toContain(BOB)
    expect(await statusOf(alice, docId, BOB)).toBe('invited')
    expect(await statusOf(alice, docId, ALICE)).toBe('member')

    expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
    await poll(async () => (await statusOf(alice, docId, BOB)) === 'member', 'Bob shown as a member once heard')
    // Bob accepted what Alice shared: she is in it.
    expect(await statusOf(bob, docId, ALICE)).toBe('member')

    await alice.close()
    const again = await librarySidecar(toy, ALICE, { E2E_COL_DATA_DIR: dataDir })
    expect(await statusOf(again, docId, BOB)).toBe('member')

    // Removed and shared again, Bob is invited again until he accepts again.
    await call(again, 'POST', `/v1/docs/${docId}/members`, { body: { remove: [BOB] } })
    expect((await call(again, 'POST', `/v1/docs/${docId}/members`, { body: { add: [BOB] } })).status).toBe(200)
    expect(await statusOf(again, docId, BOB)).toBe('invited')
  }, 40_000)
})
