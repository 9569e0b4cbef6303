import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { clientIdFor } from '@e2e-col/protocol'
import { createAuthorBook, type AuthorBookOptions, type AuthorRow, type AuthorRows } from './author-book.ts'
import { writtenAt } from './updates-fixture.ts'

const ALICE = { number: '+15550000001', uuid: 'a1a1a1a1-0000-4000-8000-000000000001' }
const BOB = { number: '+15550000002' }
const CAROL = { number: '+15550000003' }

/** Rows kept in memory, as the store keeps them (oldest first; a put replaces). */
function memoryRows(start: AuthorRow[] = []): AuthorRows & { rows: AuthorRow[] } {
  const rows = [...start]
  return {
    rows,
    load: () => [...rows],
    put(row) {
      const at = rows.findIndex((r) => r.clientId === row.clientId)
      if (at >= 0) rows.splice(at, 1)
      rows.push(row)
    },
    batch: (fn) => fn(),
    remove(ids) {
      for (const id of ids) {
        const at = rows.findIndex((r) => r.clientId === id)
        if (at >= 0) rows.splice(at, 1)
      }
    },
  }
}

/** A page writing under `clientId`; each `type` returns the update it made. */
function page(clientId: number) {
  const doc = new Y.Doc()
  doc.clientID = clientId
  return {
    doc,
    type(text: string): Uint8Array {
      const before = Y.encodeStateVector(doc)
      doc.getText('t').insert(doc.getText('t').length, text)
      return Y.encodeStateAsUpdate(doc, before)
    },
  }
}

/** A struct no page of that id made: written under `clientId` at `clock`. */
const forged = writtenAt

// Tags injected so a test can make two accounts share one (a hash collision).
const TAGS: Record<string, number> = { [ALICE.number]: 1100, [BOB.number]: 1200, [CAROL.number]: 1300 }
const idOf = (who: { number: string }, n: number) => clientIdFor(TAGS[who.number] as number, n)
const A1 = idOf(ALICE, 1)
const B1 = idOf(BOB, 1)
const C1 = idOf(CAROL, 1)
const nothingHeld = () => 0
const allHeld = () => Number.MAX_SAFE_INTEGER

const book = (rows = memoryRows(), more: Partial<AuthorBookOptions> = {}) =>
  createAuthorBook({
    self: ALICE,
    rows,
    maxPerAccount: 512,
    maxEntries: 4096,
    tagOfNumber: (n) => TAGS[n] ?? 1999,
    ...more,
  })

describe('the author book: client ids derived from the account', () => {
  it("binds its own pages' ids, verified, once, names them for an announcement, and not another's it passes on", () => {
    const b = book()
    const mine = page(A1)
    expect(b.ownUpdate(mine.type('hi'), nothingHeld)).toEqual([A1])
    expect(b.ownUpdate(mine.type(' again'), nothingHeld)).toEqual([])
    // A page's update that carries Bob's structs it just applied (an older page does): not ours.
    expect(b.ownUpdate(Y.mergeUpdates([page(B1).type('bob'), mine.type('!')]), nothingHeld)).toEqual([])
    expect(b.ownIds(64)).toEqual([A1])
    expect(b.entries()).toEqual([{ clientId: A1, author: ALICE, verified: true }])
  })

  it("keeps content a member relayed under this account's tag relayed when a page passes it on, and binds it once a page writes past it", () => {
    const b = book()
    const relayedId = idOf(ALICE, 9)
    const relayed = forged(relayedId, 0, 'bob wrote this')
    b.relayed(BOB, relayed)
    // A page's whole-state snapshot (close 4409) carries it; the replica held all of it.
    expect(b.ownUpdate(relayed, allHeld)).toEqual([])
    expect(b.entries()).toEqual([{ clientId: relayedId, relayedBy: BOB }])
    expect(b.ownIds(64)).toEqual([])
    expect(b.ownUpdate(forged(relayedId, 14, '!'), () => 14)).toEqual([relayedId])
    expect(b.entries()).toEqual([{ clientId: relayedId, author: ALICE, verified: true }])
  })

  it('binds nothing a page only passes on, also once a flood of relayed ids pushed the mark out', () => {
    const b = book(memoryRows(), { maxEntries: 8 })
    const relayedId = idOf(ALICE, 9)
    const relayed = forged(relayedId, 0, 'bob wrote this')
    b.relayed(BOB, relayed)
    b.relayed(BOB, Y.mergeUpdates(Array.from({ length: 8 }, (_, i) => forged(200 + i, 0, 'x'))))
    expect(b.entries().some((e) => e.clientId === relayedId)).toBe(false)
    expect(b.ownUpdate(relayed, allHeld)).toEqual([])
    expect(b.entries().some((e) => e.clientId === relayedId)).toBe(false)
  })

  it("keeps a member's structs under its own tag and credits them to it, verified", () => {
    const b = book()
    expect(b.memberUpdate(BOB, page(B1).type('bob'), nothingHeld)).toEqual({
      ok: true,
      strip: new Map(),
      forged: [],
      kept: 1,
    })
    expect(b.entries()).toEqual([{ clientId: B1, author: BOB, verified: true }])
  })

  it("strips structs under another account's tag: a forgery when the replica lacked them", () => {
    const b = book()
    const mixed = Y.mergeUpdates([page(C1).type('carol'), forged(B1, 3, 'fake')])
    const judged = b.memberUpdate(CAROL, mixed, nothingHeld)
    expect(judged).toEqual({ ok: true, strip: new Map([[B1, 3 + 'fake'.length]]), forged: [B1], kept: 1 })
    expect(b.entries()).toEqual([{ clientId: C1, author: CAROL, verified: true }])
  })

  it("strips, without counting a forgery, another's structs the replica already holds (an old page's diff)", () => {
    const b = book()
    const bob = page(B1)
    const relayedDiff = Y.mergeUpdates([bob.type('bob'), page(C1).type('carol')])
    const judged = b.memberUpdate(CAROL, relayedDiff, (id) => (id === B1 ? 3 : 0))
    expect(judged).toMatchObject({ strip: new Map([[B1, 3]]), forged: [], kept: 1 })
    expect(b.entries().map((e) => e.clientId)).toEqual([C1])
  })

  it("a squatter before the first edit gains nothing: its claim is refused, its writing stripped, the owner's edit verified", () => {
    const b = book()
    const alicePage = idOf(BOB, 77)
    expect(b.announced(CAROL, [alicePage])).toBe(1)
    expect(b.memberUpdate(CAROL, forged(alicePage, 0, 'squat'), nothingHeld)).toMatchObject({
      forged: [alicePage],
      kept: 0,
    })
    expect(b.entries()).toEqual([])
    expect(b.memberUpdate(BOB, page(alicePage).type('mine'), nothingHeld)).toMatchObject({ forged: [], kept: 1 })
    expect(b.entries()).toEqual([{ clientId: alicePage, author: BOB, verified: true }])
  })

  it('marks relayed content "relayed by" until its author announces it; another\'s announcement of it is refused', () => {
    const b = book()
    b.relayed(BOB, Y.mergeUpdates([page(B1).type('bob'), page(C1).type('carol')]))
    const byId = () => [...b.entries()].sort((x, y) => x.clientId - y.clientId)
    expect(byId()).toEqual([
      { clientId: B1, relayedBy: BOB },
      { clientId: C1, relayedBy: BOB },
    ])
    expect(b.announced(BOB, [B1, C1])).toBe(1)
    expect(b.announced(CAROL, [C1])).toBe(0)
    expect(byId()).toEqual([
      { clientId: B1, author: BOB, verified: true },
      { clientId: C1, author: CAROL, verified: true },
    ])
  })

  it('maps a member named by ACI only to its number through the listing, and one with no known number owns no tag', () => {
    const uuid = 'b0b0b0b0-0000-4000-8000-000000000002'
    const b = book()
    b.members([{ uuid, number: BOB.number }])
    expect(b.memberUpdate({ uuid }, page(B1).type('bob'), nothingHeld)).toMatchObject({ kept: 1, forged: [] })
    expect(b.entries()).toEqual([{ clientId: B1, author: { uuid, number: BOB.number }, verified: true }])
    // Carol's number is listed: her tag is hers alone, whatever a member with no known number says.
    b.members([{ uuid, number: BOB.number }, CAROL])
    expect(b.announced({ uuid: 'c0c0c0c0-0000-4000-8000-000000000003' }, [C1])).toBe(1)
  })

  it('keeps the edits of a member whose number nobody lists (number privacy): first-seen under a tag no one known holds, unverified', () => {
    const hidden = { uuid: 'd0d0d0d0-0000-4000-8000-000000000004' }
    const b = book()
    b.members([BOB, hidden])
    const D1 = clientIdFor(4444, 1)
    expect(b.memberUpdate(hidden, page(D1).type('dana'), nothingHeld)).toMatchObject({ kept: 1, forged: [] })
    expect(b.speaksFor(hidden, D1)).toBe(true)
    expect(b.entries()).toEqual([{ clientId: D1, author: hidden, verified: false }])
    // Another member cannot take the id from her, nor write under a tag a known member holds.
    expect(
      b.memberUpdate({ uuid: 'e0e0e0e0-0000-4000-8000-000000000005' }, forged(D1, 1, 'x'), nothingHeld),
    ).toMatchObject({ kept: 0, forged: [D1] })
    expect(b.memberUpdate(hidden, forged(B1, 0, 'x'), nothingHeld)).toMatchObject({ kept: 0, forged: [B1] })
  })

  it('lets a member speak (presence) only for ids under its tag, or legacy ids bound to it', () => {
    const b = book()
    b.memberUpdate(BOB, page(202).type('legacy'), nothingHeld)
    expect(b.speaksFor(BOB, B1)).toBe(true)
    expect(b.speaksFor(CAROL, B1)).toBe(false)
    expect(b.speaksFor(BOB, 202)).toBe(true)
    expect(b.speaksFor(CAROL, 202)).toBe(false)
    expect(b.speaksFor(CAROL, 303)).toBe(false)
  })

  it('a viewer announces its own tagged ids only: its legacy ids bind nothing', () => {
    const b = book()
    expect(b.announced(CAROL, [C1, 303, B1], true)).toBe(2)
    expect(b.entries()).toEqual([{ clientId: C1, author: CAROL, verified: true }])
  })

  it('two accounts with one tag (a collision): their ids are accepted from either and credited to neither', () => {
    const b = book(memoryRows(), { tagOfNumber: (n) => (n === ALICE.number ? 1100 : 5555) })
    b.members([BOB, CAROL])
    const shared = clientIdFor(5555, 9)
    expect(b.memberUpdate(BOB, page(shared).type('b'), nothingHeld)).toMatchObject({ kept: 1, forged: [] })
    expect(b.memberUpdate(CAROL, forged(shared, 1, 'c'), nothingHeld)).toMatchObject({ kept: 1, forged: [] })
    expect(b.announced(CAROL, [shared])).toBe(0)
    expect(b.entries()).toEqual([{ clientId: shared, relayedBy: BOB }])
  })

  it('refuses what is not a Yjs update', () => {
    expect(book().memberUpdate(BOB, Uint8Array.of(0xff, 0xff, 0xff), nothingHeld)).toEqual({ ok: false })
  })
})

describe('the author book: legacy client ids (pages before decision 0023)', () => {
  it("binds a legacy id to its first writer, unverified, and strips another's writing under it", () => {
    const b = book()
    const bob = page(202)
    b.memberUpdate(BOB, bob.type('abc'), nothingHeld)
    expect(b.entries()).toEqual([{ clientId: 202, author: BOB, verified: false }])
    const squat = forged(202, Y.getState(bob.doc.store, 202), 'squat')
    expect(b.memberUpdate(CAROL, squat, nothingHeld)).toMatchObject({ forged: [202], kept: 0 })
    expect(b.memberUpdate(BOB, bob.type('d'), nothingHeld)).toMatchObject({ forged: [], kept: 1 })
  })

  it('does not bind a legacy id whose structs the replica holds to a member passing them on', () => {
    const b = book()
    const judged = b.memberUpdate(CAROL, Y.mergeUpdates([page(202).type('bob'), page(303).type('c')]), (id) =>
      id === 202 ? 3 : 0,
    )
    expect(judged).toMatchObject({ strip: new Map([[202, 3]]), forged: [], kept: 1 })
    expect(b.entries()).toEqual([{ clientId: 303, author: CAROL, verified: false }])
  })

  it('takes an update of the same account under another of its names (number or ACI)', () => {
    const b = book()
    b.memberUpdate({ number: ALICE.number }, page(404).type('phone'), nothingHeld)
    const again = b.memberUpdate({ uuid: ALICE.uuid.toUpperCase(), number: ALICE.number }, page(404).type('x'), allHeld)
    expect(again).toMatchObject({ kept: 1, forged: [] })
  })

  it("counts an announcement naming another account's legacy id, and does not move the binding", () => {
    const b = book()
    b.ownUpdate(page(101).type('alice'), nothingHeld)
    expect(b.announced(CAROL, [101, 505])).toBe(1)
    expect(b.entries()).toEqual([
      { clientId: 101, author: ALICE, verified: false },
      { clientId: 505, author: CAROL, verified: false },
    ])
  })

  it("does not show a derived id an old sidecar bound to its first writer as that writer's, verified", () => {
    // Before 0023 a squatter writing under Bob's page id first was bound to it, in the store.
    const rows = memoryRows([{ clientId: B1, number: CAROL.number, uuid: '', relayed: false }])
    const b = book(rows)
    expect(b.entries()).toEqual([{ clientId: B1, relayedBy: CAROL }])
    expect(b.speaksFor(CAROL, B1)).toBe(false)
    expect(b.memberUpdate(BOB, page(B1).type('bob'), nothingHeld)).toMatchObject({ kept: 1, forged: [] })
    expect(b.entries()).toEqual([{ clientId: B1, author: BOB, verified: true }])
  })

  it('is durable: a book loaded from rows of a store written before 0023 judges the same', () => {
    const rows = memoryRows([{ clientId: 202, number: BOB.number, uuid: '', relayed: false }])
    expect(book(rows).memberUpdate(CAROL, forged(202, 3, 'x'), nothingHeld)).toMatchObject({ forged: [202] })
  })
})

describe('the author book: bounds and cost', () => {
  it('keeps at most maxPerAccount bindings per account: a member naming many ids pushes out only its own', () => {
    const b = book(memoryRows(), { maxPerAccount: 3, maxEntries: 100 })
    b.ownUpdate(page(A1).type('alice'), nothingHeld)
    b.announced(
      CAROL,
      [1, 2, 3, 4, 5].map((n) => idOf(CAROL, n)),
    )
    expect(b.entries().map((e) => e.clientId)).toEqual([A1, ...[3, 4, 5].map((n) => idOf(CAROL, n))])
  })

  it('keeps at most maxEntries rows, forgetting relayed marks before bindings', () => {
    const b = book(memoryRows(), { maxPerAccount: 100, maxEntries: 3 })
    b.relayed(BOB, page(900).type('relayed'))
    b.announced(BOB, [1, 2])
    b.announced(CAROL, [3])
    expect(b.entries().map((e) => e.clientId)).toEqual([1, 2, 3])
    b.announced(CAROL, [4])
    expect(b.entries().map((e) => e.clientId)).toEqual([2, 3, 4])
  })

  it('takes 100 announcements of 64 new ids with one account lookup each and one row write per id', () => {
    let lookups = 0
    const rows = memoryRows()
    let puts = 0
    const counted = { ...rows, put: () => void (puts += 1) }
    const b = book(counted, {
      maxPerAccount: 512,
      maxEntries: 8192,
      tagOfNumber: (n) => {
        lookups += 1
        return TAGS[n] ?? 1999
      },
    })
    const before = lookups
    for (let a = 0; a < 100; a += 1)
      expect(
        b.announced(
          CAROL,
          Array.from({ length: 64 }, (_, i) => idOf(CAROL, a * 64 + i)),
        ),
      ).toBe(0)
    expect(lookups - before).toBe(100)
    expect(puts).toBe(6400)
    // Bounded as it went: Carol's newest 512 stand.
    expect(b.entries()).toHaveLength(512)
    expect(b.entries().at(-1)?.clientId).toBe(idOf(CAROL, 6399))
  })
})
