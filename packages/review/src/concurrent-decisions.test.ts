import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { acceptedSpans } from './credits.ts'
import { duplicateAcceptances, outvotedAcceptance, reassertAcceptance, removeInserted } from './concurrent-decisions.ts'
import { readText } from './read-text.ts'
import { reviewMap, type Target } from './structure.ts'
import { acceptSuggestion, createSuggestion, decideWithout, listSuggestions } from './suggestions.ts'
import { ALICE_TAG, BOB_TAG, CAROL_TAG, counter, docOf, syncDocs } from './testing-docs.ts'

const TEXT: Target = { name: 'text', kind: 'text' }
const BEFORE = 'Day 1: museum. Day 2: long hike and a picnic. Day 3: home.'
const AFTER = 'Day 1: museum. Day 2: a short walk. Day 3: home.'

/** Alice wrote the text and suggested a change; every editor's replica holds both. */
function suggested(editors: number, replace = 'a short walk'): { alice: Y.Doc; id: string; replicas: Y.Doc[] } {
  const alice = docOf(ALICE_TAG)
  alice.getText('text').insert(0, BEFORE)
  const id = createSuggestion(alice, {
    target: TEXT,
    base: readText(alice, TEXT).base,
    find: 'long hike and a picnic',
    replace,
    note: 'shorter',
    at: 1,
    random: counter(),
  })
  const tags = [BOB_TAG, CAROL_TAG, ALICE_TAG]
  const replicas = tags.slice(0, editors).map((tag) => docOf(tag, 7))
  for (const r of replicas) syncDocs(alice, r)
  return { alice, id, replicas }
}

const syncAll = (docs: readonly Y.Doc[]): void => {
  for (const a of docs) for (const b of docs) if (a !== b) syncDocs(a, b)
}
const text = (doc: Y.Doc): string => doc.getText('text').toString()
const keptWriter = (doc: Y.Doc, id: string): number | undefined =>
  listSuggestions(doc).find((s) => s.id === id)?.decision?.applied?.client

describe('two editors accepting one suggestion at once', () => {
  it('the words read once after the writer of the duplicate takes it back, on every replica', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    syncAll([alice, bob, carol])
    expect(text(alice)).toBe('Day 1: museum. Day 2: a short walka short walk. Day 3: home.')

    const kept = keptWriter(alice, id)
    const [dup, ...more] = duplicateAcceptances(alice, id)
    expect(more).toEqual([])
    const loser = kept === bob.clientID ? carol : bob
    expect(dup).toEqual({ client: loser.clientID, clock: 0, len: 'a short walk'.length })
    // Every replica finds the same duplicate; only its writer removes it.
    expect(duplicateAcceptances(bob, id)).toEqual([dup])
    expect(duplicateAcceptances(carol, id)).toEqual([dup])
    removeInserted(loser, [dup!])
    syncAll([alice, bob, carol])

    for (const r of [alice, bob, carol]) expect(text(r)).toBe(AFTER)
    expect(duplicateAcceptances(alice, id)).toEqual([])
    // The kept insertion still credits the suggester.
    expect(acceptedSpans(alice).map((s) => s.client)).toEqual([kept])
  })

  it('taken back in a copy decoded from an update, whose roots no binding has typed yet', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    syncAll([alice, bob, carol])
    const [dup] = duplicateAcceptances(alice, id)
    const work = new Y.Doc({ gc: false })
    work.clientID = dup!.client === bob.clientID ? bob.clientID + 1 : carol.clientID + 1
    Y.applyUpdate(work, Y.encodeStateAsUpdate(alice))
    const before = Y.encodeStateVector(work)
    removeInserted(work, [dup!])
    Y.applyUpdate(alice, Y.encodeStateAsUpdate(work, before))
    expect(text(alice)).toBe(AFTER)
  })

  it('three at once: two duplicates, each taken back by its own writer', () => {
    const { alice, id, replicas } = suggested(3)
    replicas.forEach((r, i) => acceptSuggestion(r, id, 10 + i))
    syncAll([alice, ...replicas])
    const dups = duplicateAcceptances(alice, id)
    expect(dups.map((d) => d.client).sort()).toEqual(
      replicas
        .map((r) => r.clientID)
        .filter((c) => c !== keptWriter(alice, id))
        .sort(),
    )
    for (const r of replicas)
      removeInserted(
        r,
        dups.filter((d) => d.client === r.clientID),
      )
    syncAll([alice, ...replicas])
    for (const r of [alice, ...replicas]) expect(text(r)).toBe(AFTER)
  })

  it('a duplicate someone already edited: what is left of it goes', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    syncAll([alice, bob, carol])
    const [dup] = duplicateAcceptances(alice, id)
    const loser = dup?.client === bob.clientID ? bob : carol
    // Alice deletes the first letter of the duplicate before its writer acts.
    removeInserted(alice, [{ ...dup!, len: 1 }])
    expect(text(alice).length).toBe(AFTER.length + ' short walk'.length)
    syncAll([alice, bob, carol])
    expect(duplicateAcceptances(loser, id)).toEqual([dup])
    removeInserted(loser, [dup!])
    syncAll([alice, bob, carol])
    for (const r of [alice, bob, carol]) expect(text(r)).toBe(AFTER)
  })

  it('the same words typed at that spot after the acceptance are not a duplicate', () => {
    const { alice, id, replicas } = suggested(1)
    const [bob] = replicas as [Y.Doc]
    acceptSuggestion(bob, id, 10)
    syncDocs(alice, bob)
    alice.getText('text').insert('Day 1: museum. Day 2: '.length, 'a short walk')
    alice.getText('text').insert(AFTER.indexOf('. Day 3'), 'a short walk')
    syncDocs(alice, bob)
    expect(duplicateAcceptances(alice, id)).toEqual([])
    expect(duplicateAcceptances(bob, id)).toEqual([])
  })

  it('the same words typed by hand at that place while another editor accepted are not taken back', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    acceptSuggestion(carol, id, 11)
    // Bob makes the same change by hand: his words are his own, not an acceptance.
    const at = BEFORE.indexOf('long hike and a picnic')
    bob.getText('text').delete(at, 'long hike and a picnic'.length)
    bob.getText('text').insert(at, 'a short walk')
    syncAll([alice, bob, carol])
    expect(text(alice)).toBe('Day 1: museum. Day 2: a short walka short walk. Day 3: home.')
    expect(duplicateAcceptances(alice, id)).toEqual([])
  })

  it('a duplicate further from the kept words than the walk limit is not looked for', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    syncAll([alice, bob, carol])
    // Five letters typed one before the other between the two copies: five items apart.
    const boundary = 'Day 1: museum. Day 2: a short walk'.length
    for (let i = 0; i < 5; i += 1) alice.getText('text').insert(boundary, 'x')
    expect(duplicateAcceptances(alice, id, 5)).toEqual([])
    expect(duplicateAcceptances(alice, id, 6)).toHaveLength(1)
    expect(duplicateAcceptances(alice, id)).toHaveLength(1)
  })

  it('nothing is named when the kept decision is a rejection, or the replacement is empty', () => {
    const empty = suggested(2, '')
    const [bob, carol] = empty.replicas as [Y.Doc, Y.Doc]
    acceptSuggestion(bob, empty.id, 10)
    acceptSuggestion(carol, empty.id, 11)
    syncAll([empty.alice, bob, carol])
    expect(text(empty.alice)).toBe('Day 1: museum. Day 2: . Day 3: home.')
    expect(duplicateAcceptances(empty.alice, empty.id)).toEqual([])

    const rejected = suggested(1)
    reviewMap(rejected.alice).set(`d:${rejected.id}`, { v: 1, status: 'rejected', at: 5 })
    expect(duplicateAcceptances(rejected.alice, rejected.id)).toEqual([])
    expect(duplicateAcceptances(rejected.alice, 'no-such-id')).toEqual([])
  })

  it('a decision naming letters the document does not hold names no duplicate', () => {
    const { alice, id } = suggested(1)
    reviewMap(alice).set(`d:${id}`, { v: 1, status: 'accepted', at: 5, applied: { client: 99, clock: 0, len: 12 } })
    expect(duplicateAcceptances(alice, id)).toEqual([])
    // Letters that exist but are not the suggestion's words (the map entry itself).
    const own = Y.getState(alice.store, alice.clientID) - 1
    reviewMap(alice).set(`d:${id}`, {
      v: 1,
      status: 'accepted',
      at: 6,
      applied: { client: alice.clientID, clock: own, len: 12 },
    })
    expect(duplicateAcceptances(alice, id)).toEqual([])
  })
})

/** A replica of this account's acceptance: a fresh client id under Bob's tag, as the sidecar writes. */
const bobsAcceptance = (from: Y.Doc): Y.Doc => {
  const work = docOf(BOB_TAG, 9)
  Y.applyUpdate(work, Y.encodeStateAsUpdate(from))
  return work
}
const isBobs = (client: number): boolean => Math.floor(client / 2 ** 22) === BOB_TAG

describe('an editor accepting while another rejects', () => {
  it('when the rejection is the decision kept, the acceptance is written again under its own writer', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    const accepted = bobsAcceptance(bob)
    acceptSuggestion(accepted, id, 10)
    decideWithout(carol, id, 'rejected', 11)
    syncAll([alice, bob, carol, accepted])
    // Carol's client id is the larger: Yjs keeps her decision, and Bob's words stay.
    expect(listSuggestions(alice).find((x) => x.id === id)?.status).toBe('rejected')
    expect(text(alice)).toBe(AFTER)
    expect(outvotedAcceptance(alice, id, () => false)).toBeUndefined()
    const lost = outvotedAcceptance(bob, id, isBobs)
    expect(lost).toEqual({ client: accepted.clientID, clock: 0, len: 'a short walk'.length })

    reassertAcceptance(accepted, id, lost!, 12)
    syncAll([alice, bob, carol, accepted])
    for (const r of [alice, bob, carol]) {
      expect(text(r)).toBe(AFTER)
      expect(listSuggestions(r).find((x) => x.id === id)?.status).toBe('accepted')
      expect(outvotedAcceptance(r, id, isBobs)).toBeUndefined()
    }
    // Written by the words' own writer: the words are credited to the suggester again.
    expect(acceptedSpans(alice).map((x) => x.client)).toEqual([accepted.clientID])
  })

  it("Bob's own rejection, or words he typed by hand, are never taken for his acceptance", () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    const rejecting = bobsAcceptance(bob)
    decideWithout(rejecting, id, 'rejected', 10)
    const typing = bobsAcceptance(bob)
    typing.getText('text').insert(0, 'a short walk')
    decideWithout(carol, id, 'rejected', 11)
    syncAll([alice, bob, carol, rejecting, typing])
    expect(outvotedAcceptance(alice, id, isBobs)).toBeUndefined()
  })
})
