import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  createClaimants,
  createClaimBook,
  MAX_CLAIMS,
  MAX_CLAIMS_PER_MEMBER,
  MAX_MEMBERS,
  type Claimants,
} from './claims.ts'

const book = (members?: Claimants) =>
  createClaimBook({
    members,
    doc: new Y.Doc(),
    firstAskMs: () => 1000,
    baseSpacingMs: 60_000,
    maxSpacingMs: 600_000,
    ttlMs: 600_000,
  })

/** A state vector claiming one clock of each of `n` clients from `first` on. */
const many = (first: number, n: number) => new Map(Array.from({ length: n }, (_, i) => [first + i, 1]))

describe('the claim book bounds', () => {
  it(`tracks at most ${MAX_CLAIMS_PER_MEMBER} claims of one member, ${MAX_CLAIMS} in all`, () => {
    const b = book()
    b.note(many(1, 300), 'c', 0)
    expect(b.claimsOf('c')).toBe(MAX_CLAIMS_PER_MEMBER)
    for (let m = 0; m < 20; m++) b.note(many(10_000 + m * 1000, 256), `m${m}`, 0)
    let total = b.claimsOf('c')
    for (let m = 0; m < 20; m++) total += b.claimsOf(`m${m}`)
    expect(total).toBe(MAX_CLAIMS)
  })

  it(`remembers ${MAX_MEMBERS} members, forgetting the least recent (and its spacing)`, () => {
    const b = book()
    b.note(many(1, 1), 'first', 0)
    expect(b.take(1000)).toBe(true)
    expect(b.spacingOf('first')).toBe(60_000)
    for (let m = 0; m < MAX_MEMBERS - 1; m++) b.note(many(100 + m, 1), `m${m}`, 0)
    expect(b.spacingOf('first')).toBe(60_000)
    b.note(many(5000, 1), 'one-too-many', 0)
    expect(b.spacingOf('first')).toBeUndefined()
  })

  it('gives a claim up after the TTL, keeping the spacing', () => {
    const b = book()
    b.note(many(1, 1), 'c', 0)
    expect(b.take(1000)).toBe(true)
    expect(b.nextDue(1000)).toBe(61_000)
    expect(b.nextDue(600_001)).toBeUndefined()
    expect(b.claimsOf('c')).toBe(0)
    expect(b.spacingOf('c')).toBe(60_000)
  })

  it("keeps a member's spacing and claims across the document's stays in memory (members the caller keeps)", () => {
    const members = createClaimants()
    const first = book(members)
    // Two false claims in a row: the spacing doubles.
    first.note(many(1, 1), 'liar', 0)
    expect(first.take(1000)).toBe(true)
    first.note(many(2, 1), 'liar', 2000)
    expect(first.take(61_000)).toBe(true)
    expect(first.spacingOf('liar')).toBe(120_000)
    // Loaded again (a new replica, a new book over the same members): nothing is cheap again.
    const second = book(members)
    expect(second.spacingOf('liar')).toBe(120_000)
    expect(second.claimsOf('liar')).toBe(2)
    expect(second.take(62_000)).toBe(false)
    expect(second.nextDue(62_000)).toBe(181_000)
  })

  it('counts the claims kept members hold against the bound of all claims', () => {
    const members = createClaimants()
    const first = book(members)
    for (let m = 0; m < MAX_CLAIMS / MAX_CLAIMS_PER_MEMBER; m++)
      first.note(many(10_000 + m * 1000, MAX_CLAIMS_PER_MEMBER), `m${m}`, 0)
    const second = book(members)
    second.note(many(1, 10), 'newcomer', 0)
    expect(second.claimsOf('newcomer')).toBe(0)
  })
})
