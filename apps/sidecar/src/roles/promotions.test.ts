import type { GroupListing } from '@e2e-col/signal-cli'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../ops/logger.ts'
import { openSidecarStore } from '../phases/store.ts'
import { tempStoreDir } from '../replica/store-fixture.ts'
import { createPromotions } from './promotions.ts'

const ALICE = { number: '+33600000001' }
const BOB = { number: '+33600000002' }
const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

/** Alice's group with roles, Bob pending (invited) or a member now. */
const listing = (bob: 'pending' | 'member'): GroupListing => [
  {
    id: GROUP,
    members: bob === 'member' ? [ALICE, BOB] : [ALICE],
    pendingMembers: bob === 'pending' ? [BOB] : [],
    admins: [ALICE],
    permissionEditDetails: 'ONLY_ADMINS',
  },
]

/** Alice's promotions over the store in `dir`, recording what it asks the daemon. */
function alicePromotions(dir: string) {
  const store = openSidecarStore(dir)
  const asked: unknown[] = []
  const promotions = createPromotions({
    backend: { updateGroup: async (_g, change) => void asked.push(change) },
    listGroup: async () => undefined,
    you: ALICE.number,
    rows: store.promotions,
    now: () => 1000,
    storing: (fn) => fn(),
    logger: createLogger('silent'),
  })
  return { promotions, asked, store }
}

describe('editors invited before Signal lets them in', () => {
  it('are made admins once they join, even when the sharing sidecar restarted in between', async () => {
    const dir = tempStoreDir('promotions')
    const before = alicePromotions(dir)
    before.promotions.invited(GROUP, [BOB.number])
    before.promotions.onListed(listing('pending')) // still invited: nothing to do yet
    expect(before.asked).toEqual([])
    before.store.close()

    const after = alicePromotions(dir)
    after.promotions.onListed(listing('member'))
    await Promise.resolve()
    expect(after.asked).toEqual([{ addAdmins: [BOB.number] }])
    // Made an admin once: the memory is gone, also from the store.
    expect(after.store.promotions.list()).toEqual([])
    after.store.close()
  })

  it('forgets an invitee who left or declined, and promotes nobody for them later', async () => {
    const dir = tempStoreDir('promotions')
    const p = alicePromotions(dir)
    p.promotions.invited(GROUP, [BOB.number])
    p.promotions.onListed([{ ...listing('pending')[0], pendingMembers: [] } as GroupListing[number]])
    expect(p.store.promotions.list()).toEqual([])
    p.promotions.onListed(listing('member'))
    await Promise.resolve()
    expect(p.asked).toEqual([])
    p.store.close()
  })

  it('keeps at most the bound of invitees, forgetting the oldest first', () => {
    const dir = tempStoreDir('promotions')
    const store = openSidecarStore(dir)
    for (let i = 0; i < 1005; i++) store.promotions.remember(GROUP, `+3360000${String(i).padStart(4, '0')}`, i)
    const kept = store.promotions.list()
    expect(kept).toHaveLength(1000)
    expect(kept[0]?.number).toBe('+33600000005')
    store.close()
  })
})
