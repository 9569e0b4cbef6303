/**
 * The one membership owner: one periodic listing for the whole sidecar, listings asked now, what
 * subscribers are told, and members that carry admin-ness. Virtual time; the daemon is a counting `list`.
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGroupMembership, type GroupMembershipOptions, type Listed } from './membership.ts'

const G = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const H = 'Qmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const listing = (...groups: unknown[]) => groups as unknown as GroupListing

function setup(
  answer: (groupId?: string) => GroupListing | { fails: unknown },
  extra: Partial<GroupMembershipOptions> = {},
) {
  const asked: (string | undefined)[] = []
  const failed: unknown[] = []
  const told: Listed[] = []
  const m = createGroupMembership({
    initial: listing({
      id: G,
      members: [{ number: '+15550000001', uuid: 'u1' }, '+15550000002'],
      admins: [{ number: '+15550000001', uuid: null }],
    }),
    account: '+15550000001',
    list: (groupId) => {
      asked.push(groupId)
      const a = answer(groupId)
      return 'fails' in a ? Promise.reject(a.fails) : Promise.resolve(a)
    },
    refreshMs: 60_000,
    now: () => Date.now(),
    onListFailed: (error) => void failed.push(error),
    onSubscriberFailed: (error) => void failed.push(error),
    ...extra,
  })
  m.subscribe((l) => void told.push(l))
  return { m, asked, failed, told }
}

afterEach(() => void vi.useRealTimers())

describe('the membership owner', () => {
  it('lists every group once per refreshMs however many parts subscribe', async () => {
    vi.useFakeTimers()
    const s = setup(() => listing({ id: G, members: ['+15550000001'] }))
    for (let i = 0; i < 5; i++) s.m.subscribe(() => undefined)
    await vi.advanceTimersByTimeAsync(3 * 60_000)
    expect(s.asked).toEqual([undefined, undefined, undefined])
    expect(s.told.map((l) => l.whole)).toEqual([true, true, true])
    expect(s.m.members(G).map((m) => m.number)).toEqual(['+15550000001'])
    s.m.dispose()
  })

  it('lists one group when asked, tells the subscribers, and keeps the groups that listing leaves out', async () => {
    const s = setup((groupId) => listing({ id: groupId, members: ['+15550000009'] }))
    const before = s.m.members(G)
    expect(await s.m.ask(H)).toEqual(listing({ id: H, members: ['+15550000009'] }))
    expect(s.asked).toEqual([H])
    expect(s.told).toMatchObject([{ whole: false, listing: [{ id: H }] }])
    expect(s.m.members(H)).toEqual([{ number: '+15550000009', admin: false }])
    expect(s.m.members(G)).toEqual(before)
    expect(s.m.groups().map((g) => g.id)).toEqual([G, H])
    s.m.dispose()
  })

  it('gives each member its admin flag, by UUID or number, and knows this account', () => {
    const s = setup(() => listing())
    expect(s.m.members(G)).toEqual([
      { number: '+15550000001', uuid: 'u1', admin: true },
      { number: '+15550000002', admin: false },
    ])
    expect(s.m.members(H)).toEqual([])
    expect(s.m.self).toEqual({ number: '+15550000001', uuid: 'u1' })
    expect(s.m.selfKey()).toBe('u1')
    s.m.learnSelf('u-other')
    expect(s.m.selfKey()).toBe('u1')
    s.m.dispose()
  })

  it('learns its key from a sync copy when no listing names it', () => {
    const s = setup(() => listing(), { account: '+15550000077' })
    expect(s.m.selfKey()).toBeUndefined()
    s.m.learnSelf('u77')
    s.m.learnSelf('u78')
    expect(s.m.selfKey()).toBe('u77')
    s.m.dispose()
  })

  it('reports a failed periodic listing, tells no subscriber, and rejects a failed ask to its caller', async () => {
    vi.useFakeTimers()
    const error = new Error('daemon away')
    const s = setup(() => ({ fails: error }))
    await vi.advanceTimersByTimeAsync(60_000)
    expect(s.failed).toEqual([error])
    await expect(s.m.ask(G)).rejects.toBe(error)
    expect(s.failed).toEqual([error])
    expect(s.told).toEqual([])
    expect(s.m.members(G)).toHaveLength(2)
    s.m.dispose()
  })

  it('still tells the other subscribers when one throws, and reports it', async () => {
    const s = setup(() => listing({ id: G }))
    const bug = new Error('subscriber bug')
    s.m.subscribe(() => {
      throw bug
    })
    const late: Listed[] = []
    s.m.subscribe((l) => void late.push(l))
    await s.m.ask()
    expect(s.told).toHaveLength(1)
    expect(late).toHaveLength(1)
    expect(s.failed).toEqual([bug])
    s.m.dispose()
  })

  it('after dispose, lists no more and tells no one of a listing in flight', async () => {
    vi.useFakeTimers()
    const pending: ((l: GroupListing) => void)[] = []
    const s = setup(() => listing(), {
      list: () => new Promise<GroupListing>((resolve) => void pending.push(resolve)),
    })
    await vi.advanceTimersByTimeAsync(60_000)
    s.m.dispose()
    for (const answer of pending) answer(listing({ id: G, members: ['+15550000099'] }))
    await vi.advanceTimersByTimeAsync(600_000)
    expect(s.told).toEqual([])
    expect(s.m.members(G)).toHaveLength(2)
  })

  it('unsubscribes one listener and keeps telling the rest', async () => {
    const s = setup(() => listing({ id: G }))
    const seen: Listed[] = []
    const stop = s.m.subscribe((l) => void seen.push(l))
    stop()
    await s.m.ask()
    expect(seen).toEqual([])
    expect(s.told).toHaveLength(1)
    s.m.dispose()
  })
})
