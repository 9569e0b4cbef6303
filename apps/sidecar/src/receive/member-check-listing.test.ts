/**
 * Membership over time (docs/sidecar.md §4.6): the periodic listing that refuses a removed member
 * within `refreshMs`, listings that name several groups or leave one out, a listing that fails,
 * and `dispose` racing a listing still in flight. Virtual time; the daemon is a scripted `list`.
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { MessageSource } from './member-check.ts'
import { checkedMembership, data, G, OTHER, type CheckedMembershipOptions } from './member-check-fixture.ts'

const group = (id: string, ...numbers: string[]) => ({ id, members: numbers.map((number) => ({ number, uuid: null })) })
const listing = (...groups: unknown[]) => groups as unknown as GroupListing

/** A daemon whose answers are released by the test, one call at a time. */
function scriptedDaemon() {
  const calls: { groupId: string | undefined; resolve: (l: GroupListing) => void; reject: (e: unknown) => void }[] = []
  const list = (groupId?: string) =>
    new Promise<GroupListing>((resolve, reject) => void calls.push({ groupId, resolve, reject }))
  return { list, calls }
}

function setup(initial: GroupListing, extra: Partial<CheckedMembershipOptions> = {}) {
  const daemon = scriptedDaemon()
  const dropped: string[] = []
  const failed: unknown[] = []
  let now = 1_000_000
  const m = checkedMembership({
    account: '+15550000001',
    groupIds: [G],
    initial,
    list: daemon.list,
    refreshMs: 60_000,
    minRefreshGapMs: 5000,
    maxHeld: 8,
    now: () => now,
    dropped: (reason) => void dropped.push(reason),
    onListFailed: (error) => void failed.push(error),
    ...extra,
  })
  const reads: string[] = []
  const admit = (source: MessageSource, label: string, groupId = G) => m.admit(groupId, source, () => reads.push(label))
  return { m, daemon, dropped, failed, reads, admit, advanceNow: (ms: number) => void (now += ms) }
}

/** On virtual time, G listed with one member, past its first periodic listing answered by `answer`. */
async function afterFirstPeriodicListing(answer: (call: ReturnType<typeof scriptedDaemon>['calls'][number]) => void) {
  vi.useFakeTimers()
  const s = setup(listing(group(G, '+15550000002')))
  await vi.advanceTimersByTimeAsync(60_000)
  expect(s.daemon.calls).toHaveLength(1)
  answer(s.daemon.calls[0]!)
  await vi.advanceTimersByTimeAsync(0)
  return s
}

/** On virtual time, disposed while a listing asked for an unknown member's body (`label`) is in flight. */
function disposedWhileListing(label: string) {
  vi.useFakeTimers()
  const s = setup(listing(group(G, '+15550000002')))
  s.advanceNow(5000) // the start listing is older than the gap: asked at once
  s.admit(data('+15550000009'), label)
  expect(s.daemon.calls).toHaveLength(1)
  s.m.dispose()
  return s
}

afterEach(() => void vi.useRealTimers())

describe('membership: listings that name several groups or leave one out', () => {
  it("reads each group's own members from a listing of several groups", () => {
    const s = setup(listing(group(OTHER, '+15550000003'), group(G, '+15550000002')), { groupIds: [G, OTHER] })
    expect(s.m.members(G)).toEqual(['+15550000002'])
    expect(s.m.members(OTHER)).toEqual(['+15550000003'])
    s.admit(data('+15550000003'), 'OTHER member in G')
    expect(s.reads).toEqual([])
    s.m.dispose()
  })

  it('knows no members of a checked group the first listing leaves out, and reads everyone until it is listed', () => {
    const s = setup(listing(group(OTHER, '+15550000003')))
    expect(s.m.members(G)).toEqual([])
    s.admit(data('+15550000666'), 'stranger')
    expect(s.reads).toEqual(['stranger'])
    s.m.dispose()
  })

  it('gives the empty key to a member listed with neither number nor UUID', () => {
    const s = setup(listing({ id: G, members: [{ number: null, uuid: null }] }))
    expect(s.m.members(G)).toEqual([''])
    s.m.dispose()
  })

  it('finds no self without a configured account, even for a member without a number', () => {
    const s = setup(listing({ id: G, members: [{ uuid: 'u2' }] }), { account: undefined })
    expect(s.m.self()).toBeUndefined()
    s.m.dispose()
  })

  it('learns its own key from a sync copy that names only a UUID, or only a number', () => {
    const byUuid = setup(listing(group(G, '+15550000002')), { account: undefined })
    byUuid.m.admit(G, { origin: 'sync', sourceNumber: undefined, sourceUuid: 'u-self' }, () => undefined)
    expect(byUuid.m.self()).toBe('u-self')
    byUuid.m.dispose()
    const byNumber = setup(listing(group(G, '+15550000002')), { account: undefined })
    byNumber.m.admit(G, { origin: 'sync', sourceNumber: '+15550000001', sourceUuid: undefined }, () => undefined)
    expect(byNumber.m.self()).toBe('+15550000001')
    byNumber.m.dispose()
  })

  it('knows no members of a group served since start before its first listing', () => {
    const s = setup(listing(), { groupIds: [], serves: (id) => id === OTHER })
    s.admit(data('+15550000002'), 'first body', OTHER)
    expect(s.m.members(OTHER)).toEqual([])
    expect(s.reads).toEqual([])
    s.m.dispose()
  })
})

describe('membership: the periodic listing', () => {
  it('lists every group each refreshMs, so a removed member is held and dropped, not read', async () => {
    vi.useFakeTimers()
    const s = setup(listing(group(G, '+15550000002', '+15550000003')))
    s.admit(data('+15550000003'), 'before removal')
    expect(s.reads).toEqual(['before removal'])
    await vi.advanceTimersByTimeAsync(59_999)
    expect(s.daemon.calls).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(s.daemon.calls.map((c) => c.groupId)).toEqual([undefined])
    s.daemon.calls[0]!.resolve(listing(group(G, '+15550000002')))
    await vi.advanceTimersByTimeAsync(0)
    expect(s.m.members(G)).toEqual(['+15550000002'])
    s.admit(data('+15550000003'), 'after removal')
    s.admit(data('+15550000002'), 'still a member')
    expect(s.reads).toEqual(['before removal', 'still a member'])
    // The removed member waits for a listing of the group, asked after the rest of the gap.
    await vi.advanceTimersByTimeAsync(5000)
    expect(s.daemon.calls.map((c) => c.groupId)).toEqual([undefined, G])
    s.daemon.calls[1]!.resolve(listing(group(G, '+15550000002')))
    await vi.advanceTimersByTimeAsync(0)
    expect(s.reads).toEqual(['before removal', 'still a member'])
    expect(s.dropped).toEqual(['non-member'])
    s.m.dispose()
  })

  it('keeps a group a periodic listing leaves out, and takes the other groups it names', async () => {
    vi.useFakeTimers()
    const s = setup(listing(group(G, '+15550000002'), group(OTHER, '+15550000003')), { groupIds: [G, OTHER] })
    await vi.advanceTimersByTimeAsync(60_000)
    s.daemon.calls[0]!.resolve(listing(group(OTHER, '+15550000009')))
    await vi.advanceTimersByTimeAsync(0)
    expect(s.m.members(G)).toEqual(['+15550000002'])
    expect(s.m.members(OTHER)).toEqual(['+15550000009'])
    s.m.dispose()
  })

  it('reads everyone once a listing names the group without members', async () => {
    const s = await afterFirstPeriodicListing((call) => call.resolve(listing({ id: G })))
    s.admit(data('+15550000666'), 'anyone')
    expect(s.reads).toEqual(['anyone'])
    s.m.dispose()
  })

  it('reports a failed periodic listing and keeps the members it had', async () => {
    const error = new Error('daemon away')
    const s = await afterFirstPeriodicListing((call) => call.reject(error))
    expect(s.failed).toEqual([error])
    s.admit(data('+15550000002'), 'member')
    expect(s.reads).toEqual(['member'])
    s.m.dispose()
  })

  it('ignores a periodic listing that answers after dispose, and asks no more', async () => {
    vi.useFakeTimers()
    const s = setup(listing(group(G, '+15550000002')))
    await vi.advanceTimersByTimeAsync(120_000)
    expect(s.daemon.calls).toHaveLength(2)
    s.m.dispose()
    s.daemon.calls[0]!.resolve(listing(group(G, '+15550000009')))
    s.daemon.calls[1]!.reject(new Error('late'))
    await vi.advanceTimersByTimeAsync(600_000)
    expect(s.m.members(G)).toEqual(['+15550000002'])
    expect(s.failed).toEqual([])
    expect(s.daemon.calls).toHaveLength(2)
  })
})

describe('membership: a listing asked for an unknown source', () => {
  it('reports a failed listing, drops what it held, and waits the gap before asking again', async () => {
    vi.useFakeTimers()
    const s = setup(listing(group(G, '+15550000002')))
    s.advanceNow(5000) // the start listing is older than the gap: asked at once
    s.admit(data('+15550000009'), 'unknown')
    expect(s.daemon.calls.map((c) => c.groupId)).toEqual([G])
    const error = new Error('daemon away')
    s.daemon.calls[0]!.reject(error)
    await vi.advanceTimersByTimeAsync(0)
    expect(s.failed).toEqual([error])
    expect(s.dropped).toEqual(['non-member'])
    s.admit(data('+15550000009'), 'unknown again')
    expect(s.daemon.calls).toHaveLength(1)
    s.advanceNow(5000)
    await vi.advanceTimersByTimeAsync(5000)
    expect(s.daemon.calls).toHaveLength(2)
    s.m.dispose()
  })

  it('after dispose, takes nothing from a listing in flight and reads nothing it would admit', async () => {
    const s = disposedWhileListing('held before dispose')
    s.admit(data('+15550000008'), 'held after dispose')
    s.daemon.calls[0]!.resolve(listing(group(G, '+15550000002', '+15550000008', '+15550000009')))
    await vi.advanceTimersByTimeAsync(0)
    expect(s.m.members(G)).toEqual(['+15550000002'])
    expect(s.reads).toEqual([])
    expect(s.dropped).toEqual([])
  })

  it('after dispose, does not report a listing in flight that fails', async () => {
    const s = disposedWhileListing('held')
    s.daemon.calls[0]!.reject(new Error('late'))
    await vi.advanceTimersByTimeAsync(0)
    expect(s.failed).toEqual([])
    expect(s.reads).toEqual([])
  })
})
