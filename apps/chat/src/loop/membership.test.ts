import { describe, expect, it } from 'vitest'
import { backoffDelay } from '../backoff.ts'
import { checkMembership } from './membership.ts'

const allowed = new Set(['+15550000001', '+15550000002'])
const m = (numbers: Array<string | null>, extra: Partial<{ isMember: boolean; pending: string[] }> = {}) => ({
  isMember: extra.isMember ?? true,
  members: numbers.map((number) => ({ number, uuid: null })),
  pendingMembers: (extra.pending ?? []).map((number) => ({ number, uuid: null })),
  requestingMembers: [],
})

describe('membership check before each post', () => {
  it('passes with only the account and operators', () => {
    expect(checkMembership(m(['+15550000001', '+15550000002']), allowed)).toEqual({ ok: true })
  })
  it('fails when a stranger is a member', () => {
    expect(checkMembership(m(['+15550000001', '+15550000009']), allowed)).toEqual({ ok: false, reason: 'stranger' })
  })
  it('fails when a stranger is merely invited', () => {
    expect(checkMembership(m(['+15550000001'], { pending: ['+15550000009'] }), allowed)).toEqual({
      ok: false,
      reason: 'stranger',
    })
  })
  it('fails closed on a member with a hidden number', () => {
    expect(checkMembership(m(['+15550000001', null]), allowed)).toEqual({ ok: false, reason: 'unverifiable' })
  })
  it('fails when the group is unknown or we left it', () => {
    expect(checkMembership(undefined, allowed)).toEqual({ ok: false, reason: 'unknown-group' })
    expect(checkMembership(m(['+15550000002'], { isMember: false }), allowed)).toEqual({
      ok: false,
      reason: 'not-member',
    })
  })
})

describe('backoff', () => {
  it('grows exponentially up to its cap, with jitter in [50%, 100%)', () => {
    expect(backoffDelay(0, { baseMs: 100, maxMs: 1000, rng: () => 0 })).toBe(50)
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1000, rng: () => 0.999 })).toBe(800)
    expect(backoffDelay(10, { baseMs: 100, maxMs: 1000, rng: () => 0 })).toBe(500)
  })
})
