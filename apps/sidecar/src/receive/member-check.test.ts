import { describe, expect, it, onTestFinished } from 'vitest'
import type { MessageSource } from './member-check.ts'
import { checkedMembership } from './member-check-fixture.ts'

const G = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const from = (sourceNumber: string, sourceUuid?: string): MessageSource => ({
  origin: 'data',
  sourceNumber,
  sourceUuid,
})
type Listing = { id: string; members?: { number: string | null; uuid: string }[] }[]

function setup(
  initial: Listing,
  later: Listing = initial,
  served: { groupIds: string[]; serves?: (groupId: string) => boolean } = { groupIds: [G] },
) {
  const dropped: string[] = []
  let lists = 0
  const m = checkedMembership({
    account: '+15550000001',
    ...served,
    initial,
    list: () => {
      lists += 1
      return Promise.resolve(later)
    },
    refreshMs: 60_000,
    minRefreshGapMs: 0,
    maxHeld: 2,
    now: () => Date.now(),
    dropped: (reason) => dropped.push(reason),
    onListFailed: () => {},
  })
  onTestFinished(() => m.dispose())
  return { m, dropped, lists: () => lists }
}

const settle = () => new Promise((r) => setTimeout(r, 20))

describe('group membership on the receive path', () => {
  const members = [
    { number: '+15550000001', uuid: 'u1' },
    { number: null, uuid: 'u2' },
  ]

  it('reads a listed member at once, by number or by UUID, and knows its own key', () => {
    const { m, lists } = setup([{ id: G, members }])
    const seen: string[] = []
    m.admit(G, from('+15550000001'), () => seen.push('by number'))
    m.admit(G, { origin: 'data', sourceNumber: undefined, sourceUuid: 'u2' }, () => seen.push('by uuid'))
    expect(seen).toEqual(['by number', 'by uuid'])
    expect(lists()).toBe(0)
    expect(m.self()).toBe('u1')
    expect(m.members(G)).toEqual(['u1', 'u2'])
  })

  it('checks a group served since start (a document made at run time): members read after a listing, strangers dropped', async () => {
    const { m, dropped, lists } = setup([], [{ id: G, members }], { groupIds: [], serves: (groupId) => groupId === G })
    const seen: string[] = []
    m.admit(G, from('+15550000001'), () => seen.push('member'))
    m.admit(G, from('+15550000666', 'u6'), () => seen.push('stranger'))
    m.admit('some-other-group', from('+15550000666'), () => seen.push('not ours'))
    expect(seen).toEqual(['not ours'])
    await settle()
    expect(seen).toEqual(['not ours', 'member'])
    expect(dropped).toEqual(['non-member'])
    expect(lists()).toBe(1)
  })

  it('holds an unknown source for a fresh listing: a new member is read, anyone else dropped', async () => {
    const { m, dropped } = setup(
      [{ id: G, members }],
      [{ id: G, members: [...members, { number: '+15550000009', uuid: 'u9' }] }],
    )
    const seen: string[] = []
    m.admit(G, from('+15550000009', 'u9'), () => seen.push('new member'))
    m.admit(G, from('+15550000666', 'u6'), () => seen.push('stranger'))
    expect(seen).toEqual([])
    await settle()
    expect(seen).toEqual(['new member'])
    expect(dropped).toEqual(['non-member'])
  })

  it('drops beyond the held bound, and checks nothing when the daemon lists no members', async () => {
    const bounded = setup([{ id: G, members }])
    for (let i = 0; i < 3; i++) bounded.m.admit(G, from('+15550000666'), () => {})
    expect(bounded.dropped).toEqual(['membership-backlog'])
    await settle()
    expect(bounded.dropped).toEqual(['membership-backlog', 'non-member', 'non-member'])
    const unlisted = setup([{ id: G }])
    const seen: string[] = []
    unlisted.m.admit(G, from('+15550000666'), () => seen.push('read'))
    expect(seen).toEqual(['read'])
  })
})
