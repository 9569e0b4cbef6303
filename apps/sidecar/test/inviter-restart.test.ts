/**
 * Who shared an invitation survives a restart (docs/documents.md §1.4): a stranger makes a
 * document group for Alice and leaves it, Alice's sidecar restarts, and the invitation still
 * names the stranger (before, it fell back to the group's first admin: nobody, or a contact).
 */
import { describe, expect, it } from 'vitest'
import { documentDescription } from '../src/group/group-tag.ts'
import { ALICE, BOB, CAROL, call, librarySidecar, rpc, startPeopleToy } from './docs-api.ts'
import { poll, tempDataDir } from './harness.ts'

describe('the inviter', () => {
  it('is stored with the invitation: a stranger who left is still named after a restart', async () => {
    const toy = await startPeopleToy()
    const dataDir = tempDataDir()
    const first = await librarySidecar(toy, ALICE, { E2E_COL_DATA_DIR: dataDir })
    const { groupId } = await rpc(toy.url, 'updateGroup', {
      account: CAROL,
      name: 'Free money',
      members: [ALICE, BOB],
      description: documentDescription(),
    })
    await rpc(toy.url, 'quitGroup', { account: CAROL, groupId })
    const from = async (s: { port: number }) =>
      ((await call(s, 'GET', '/v1/invites')).json.invites as { groupId: string; from?: { number: string } }[]).find(
        (i) => i.groupId === groupId,
      )?.from
    // The group has no admin left: only the stored sender can say who shared it.
    expect((await rpc(toy.url, 'listGroups', { account: ALICE })).find((g: any) => g.id === groupId).admins).toEqual([])
    await poll(async () => (await from(first))?.number === CAROL, "Carol's invitation")
    await first.close()

    const second = await librarySidecar(toy, ALICE, { E2E_COL_DATA_DIR: dataDir })
    expect(await from(second)).toEqual(
      expect.objectContaining({
        number: CAROL,
        name: 'Carol',
        inContacts: false,
        shown: 'Carol (not in your contacts, …0103)',
      }),
    )
    // Declining forgets it.
    await call(second, 'POST', `/v1/invites/${(await call(second, 'GET', '/v1/invites')).json.invites[0].id}/decline`, {
      body: {},
    })
    expect((await call(second, 'GET', '/v1/invites')).json.invites).toEqual([])
  }, 30_000)
})
