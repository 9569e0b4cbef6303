/**
 * The membership rules of docs/sidecar.md §4.6 one by one: how a listing names members (a bare
 * number, or an object with a number and/or a UUID), who this account is, sync copies, and when a
 * fresh listing is asked for (at most every `minRefreshGapMs`).
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { MessageSource } from './member-check.ts'
import { checkedMembership, data, G, OTHER, type CheckedMembershipOptions } from './member-check-fixture.ts'

function setup(initial: GroupListing, extra: Partial<CheckedMembershipOptions> = {}) {
  const dropped: string[] = []
  const asked: (string | undefined)[] = []
  let now = 1_000_000
  const m = checkedMembership({
    account: '+15550000001',
    groupIds: [G],
    initial,
    list: (groupId) => (asked.push(groupId), Promise.resolve(initial)),
    refreshMs: 600_000,
    minRefreshGapMs: 5000,
    maxHeld: 8,
    now: () => now,
    dropped: (reason) => void dropped.push(reason),
    onListFailed: () => undefined,
    ...extra,
  })
  const admitted = (source: MessageSource, groupId = G) => {
    let ran = false
    m.admit(groupId, source, () => (ran = true))
    return ran
  }
  return { m, dropped, asked, admitted, setNow: (ms: number) => void (now = ms) }
}

afterEach(() => void vi.useRealTimers())

describe('membership: reading a listing', () => {
  it('takes a bare number, and an object by number or by UUID, each as its own key', () => {
    const listing = [
      { id: G, members: ['+15550000009', { number: '+15550000002', uuid: null }, { number: null, uuid: 'u3' }] },
    ] as unknown as GroupListing
    const s = setup(listing)
    expect(s.m.members(G)).toEqual(['+15550000009', '+15550000002', 'u3'])
    expect(s.admitted(data('+15550000009'))).toBe(true)
    expect(s.admitted(data('+15550000002'))).toBe(true)
    expect(s.admitted(data(undefined, 'u3'))).toBe(true)
    // A UUID-less member object adds no UUID, a number-less one no number.
    expect(s.admitted(data(undefined, 'null'))).toBe(false)
    expect(s.admitted(data('null'))).toBe(false)
    s.m.dispose()
  })

  it('knows no members of a group it does not check', () => {
    const s = setup([{ id: G, members: [] }] as unknown as GroupListing)
    expect(s.m.members(OTHER)).toEqual([])
    expect(s.admitted(data('+15550000077'), OTHER)).toBe(true) // not this module's business
    s.m.dispose()
  })

  it('finds this account in the listing by bare number or by a member object', () => {
    const bare = setup([{ id: G, members: ['+15550000001'] }] as unknown as GroupListing)
    expect(bare.m.self()).toBe('+15550000001')
    bare.m.dispose()
    const obj = setup([{ id: G, members: [{ number: '+15550000001', uuid: 'me' }] }] as unknown as GroupListing)
    expect(obj.m.self()).toBe('me')
    obj.m.dispose()
    const absent = setup([{ id: G, members: [{ number: '+15550000002', uuid: 'x' }] }] as unknown as GroupListing)
    expect(absent.m.self()).toBeUndefined()
    absent.m.dispose()
    const unconfigured = setup([{ id: G, members: ['+15550000001'] }] as unknown as GroupListing, {
      account: undefined,
    })
    expect(unconfigured.m.self()).toBeUndefined()
    unconfigured.m.dispose()
  })

  it('learns its own key from the first sync copy that names a source, and only then', () => {
    const s = setup([{ id: G, members: [{ number: '+15550000002', uuid: 'x' }] }] as unknown as GroupListing)
    expect(s.admitted({ origin: 'sync', sourceNumber: undefined, sourceUuid: undefined })).toBe(true)
    expect(s.m.self()).toBeUndefined()
    expect(s.admitted({ origin: 'data', sourceNumber: '+15550000002', sourceUuid: 'x' })).toBe(true)
    expect(s.m.self()).toBeUndefined() // a member's own message says nothing about us
    expect(s.admitted({ origin: 'sync', sourceNumber: '+15550000001', sourceUuid: 'me' })).toBe(true)
    expect(s.m.self()).toBe('me')
    s.admitted({ origin: 'sync', sourceNumber: '+15550000001', sourceUuid: 'other' })
    expect(s.m.self()).toBe('me')
    s.m.dispose()
  })
})

describe('membership: fresh listings', () => {
  it('asks for a listing of the one group at once when the last is older than the gap, else after the rest of it', async () => {
    vi.useFakeTimers()
    const s = setup([{ id: G, members: [] }] as unknown as GroupListing)
    // Listed at start (t = 1 000 000): a stranger 2 s later waits for the 3 s left of the gap.
    s.setNow(1_002_000)
    expect(s.admitted(data('+15550000077'))).toBe(false)
    expect(s.asked).toEqual([])
    await vi.advanceTimersByTimeAsync(2999)
    expect(s.asked).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(s.asked).toEqual([G])
    expect(s.dropped).toEqual(['non-member'])
    // Long after: a stranger gets a listing at once.
    s.setNow(1_100_000)
    s.admitted(data('+15550000078'))
    expect(s.asked).toEqual([G, G])
    await vi.advanceTimersByTimeAsync(0)
    expect(s.dropped).toEqual(['non-member', 'non-member'])
    s.m.dispose()
  })

  it('asks nothing and runs nothing after dispose', async () => {
    vi.useFakeTimers()
    const s = setup([{ id: G, members: [] }] as unknown as GroupListing)
    s.setNow(1_001_000)
    let ran = false
    s.m.admit(G, data('+15550000077'), () => (ran = true))
    s.m.dispose()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(s.asked).toEqual([])
    expect(ran).toBe(false)
    expect(s.dropped).toEqual([])
  })

  it('checks a group served since start, holding its first body for a listing', async () => {
    const listing = [{ id: OTHER, members: [{ number: '+15550000002', uuid: 'x' }] }] as unknown as GroupListing
    const s = setup([], { groupIds: [], serves: (g) => g === OTHER, list: () => Promise.resolve(listing) })
    let ran = false
    s.m.admit(OTHER, data('+15550000002', 'x'), () => (ran = true))
    expect(ran).toBe(false)
    await vi.waitFor(() => expect(ran).toBe(true))
    expect(s.m.members(OTHER)).toEqual(['x'])
    expect(s.admitted(data('+15550000003'), G)).toBe(true) // neither checked nor served
    s.m.dispose()
  })
})
