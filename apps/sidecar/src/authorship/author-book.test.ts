import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createAuthorBook, type AuthorRow, type AuthorRows } from './author-book.ts'
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

const book = (rows = memoryRows(), bounds = { maxPerAccount: 512, maxEntries: 4096 }) =>
  createAuthorBook({ self: ALICE, rows, ...bounds })

describe('the author book: who each client id belongs to', () => {
  it("binds its own pages' client ids to this account, once, and names them for an announcement", () => {
    const b = book()
    const mine = page(101)
    expect(b.ownUpdate(mine.type('hi'))).toEqual([101])
    expect(b.ownUpdate(mine.type(' again'))).toEqual([])
    expect(b.ownIds(64)).toEqual([101])
    expect(b.entries()).toEqual([{ clientId: 101, author: ALICE }])
  })

  it("binds a client id first seen in a member's own update to that member", () => {
    const b = book()
    expect(b.memberUpdate(BOB, page(202).type('bob'))).toEqual({ ok: true })
    expect(b.entries()).toEqual([{ clientId: 202, author: BOB }])
  })

  it("refuses a member's update written under another account's client id (a forgery)", () => {
    const b = book()
    const alice = page(101)
    b.ownUpdate(alice.type('alice'))
    const verdict = b.memberUpdate(CAROL, forged(101, 20, 'not alice'))
    expect(verdict).toEqual({ ok: false, clientId: 101, owner: ALICE })
    // Nothing of the forgery was bound: Carol owns no id.
    expect(b.entries()).toEqual([{ clientId: 101, author: ALICE }])
  })

  it("refuses a struct squatting the owner's next clock, and takes the owner's own next edit", () => {
    const b = book()
    const bobPage = page(202)
    b.memberUpdate(BOB, bobPage.type('abc'))
    const squat = forged(202, Y.getState(bobPage.doc.store, 202), 'squat')
    expect(b.memberUpdate(CAROL, squat)).toMatchObject({ ok: false, clientId: 202 })
    expect(b.memberUpdate(BOB, bobPage.type('d'))).toEqual({ ok: true })
  })

  it('refuses a mixed update whole when one of its client ids is another account’s', () => {
    const b = book()
    b.memberUpdate(BOB, page(202).type('bob'))
    const mixed = Y.mergeUpdates([page(303).type('carol'), forged(202, 3, 'fake')])
    expect(b.memberUpdate(CAROL, mixed)).toMatchObject({ ok: false, clientId: 202 })
    expect(b.entries().map((e) => e.clientId)).toEqual([202])
  })

  it('takes an update of the same account under another of its names (number or ACI)', () => {
    const b = book()
    b.memberUpdate({ number: ALICE.number }, page(404).type('phone'))
    expect(b.memberUpdate({ uuid: ALICE.uuid.toUpperCase(), number: ALICE.number }, page(404).type('x'))).toEqual({
      ok: true,
    })
  })

  it('marks relayed content "relayed by" until its author announces it, and keeps a binding as it is', () => {
    const b = book()
    const bob = page(202)
    const carolPage = page(303)
    b.memberUpdate(CAROL, carolPage.type('carol'))
    // Bob answers a sync request with his own and Carol's content: relayed, not Bob's.
    b.relayed(BOB, Y.mergeUpdates([bob.type('bob'), carolPage.type('more')]))
    expect(b.entries()).toEqual([
      { clientId: 303, author: CAROL },
      { clientId: 202, relayedBy: BOB },
    ])
    expect(b.announced(BOB, [202])).toBe(0)
    expect(b.entries()).toContainEqual({ clientId: 202, author: BOB })
  })

  it("counts an announcement naming another account's id, and does not move the binding", () => {
    const b = book()
    b.ownUpdate(page(101).type('alice'))
    expect(b.announced(CAROL, [101, 505])).toBe(1)
    expect(b.entries()).toEqual([
      { clientId: 101, author: ALICE },
      { clientId: 505, author: CAROL },
    ])
  })

  it('refuses what is not a Yjs update', () => {
    expect(book().memberUpdate(BOB, Uint8Array.of(0xff, 0xff, 0xff))).toEqual({ ok: false, reason: 'not-an-update' })
  })

  it('keeps at most maxPerAccount bindings per account: a member naming many ids pushes out only its own', () => {
    const b = book(memoryRows(), { maxPerAccount: 3, maxEntries: 100 })
    b.ownUpdate(page(101).type('alice'))
    b.announced(CAROL, [1, 2, 3, 4, 5])
    const ids = b.entries().map((e) => e.clientId)
    expect(ids).toEqual([101, 3, 4, 5])
    expect(b.memberUpdate(CAROL, forged(101, 5, 'still refused'))).toMatchObject({ ok: false, owner: ALICE })
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

  it('is durable: a book loaded from the same rows judges the same', () => {
    const rows = memoryRows()
    book(rows).memberUpdate(BOB, page(202).type('bob'))
    const again = book(memoryRows(rows.rows))
    expect(again.memberUpdate(CAROL, forged(202, 3, 'x'))).toMatchObject({ ok: false, owner: BOB })
  })
})
