import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { removeInserted, settlementOf, type Settlement } from './concurrent-decisions.ts'
import { acceptedSpans } from './credits.ts'
import { readText } from './read-text.ts'
import { reviewMap, type Target } from './structure.ts'
import { acceptSuggestion, createSuggestion, decideWithout, listSuggestions } from './suggestions.ts'
import { ALICE_TAG, BOB_TAG, CAROL_TAG, counter, docOf, syncDocs } from './testing-docs.ts'

const TEXT: Target = { name: 'text', kind: 'text' }
const BEFORE = 'Day 1: museum. Day 2: long hike and a picnic. Day 3: home.'
const AFTER = 'Day 1: museum. Day 2: a short walk. Day 3: home.'
const WORDS = 'a short walk'

/** Alice wrote the text and suggested a change; every editor's replica holds both. */
function suggested(editors: number, replace = WORDS): { alice: Y.Doc; id: string; replicas: Y.Doc[] } {
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
  const replicas = [BOB_TAG, CAROL_TAG, ALICE_TAG].slice(0, editors).map((tag) => docOf(tag, 7))
  for (const r of replicas) syncDocs(alice, r)
  return { alice, id, replicas }
}

const syncAll = (docs: readonly Y.Doc[]): void => {
  for (const a of docs) for (const b of docs) if (a !== b) syncDocs(a, b)
}
const text = (doc: Y.Doc): string => doc.getText('text').toString()
const statusOf = (doc: Y.Doc, id: string) => listSuggestions(doc).find((s) => s.id === id)?.status
const keptWriter = (doc: Y.Doc, id: string): number | undefined =>
  listSuggestions(doc).find((s) => s.id === id)?.decision?.applied?.client
/** What `writer` (a replica, as its sidecar would) settles for `id`, judged on `on`. */
/** The insertion `writer`'s acceptance made (a replica that wrote nothing before it: from clock 0). */
const mineOf = (writer: Y.Doc) => ({ client: writer.clientID, clock: 0, len: WORDS.length })
/** What `writer`'s sidecar settles for `id`, judged on `on`. */
const settledBy = (on: Y.Doc, writer: Y.Doc, id: string): Settlement => settlementOf(on, id, mineOf(writer))

/** Applies a settlement as the sidecar does: deletions under a fresh id, the decision under its writer's. */
function apply(writer: Y.Doc, id: string, s: Settlement): void {
  if (s.remove !== undefined) removeInserted(writer, [s.remove])
  if (s.reassert !== undefined) reviewMap(writer).set(`d:${id}`, s.reassert.decision)
}

/** Bob and Carol both accepted, and every replica holds both: `loser` wrote the acceptance not kept. */
function acceptedTwice() {
  const { alice, id, replicas } = suggested(2)
  const [bob, carol] = replicas as [Y.Doc, Y.Doc]
  acceptSuggestion(bob, id, 10)
  acceptSuggestion(carol, id, 11)
  syncAll([alice, bob, carol])
  const loser = keptWriter(alice, id) === bob.clientID ? carol : bob
  return { alice, id, bob, carol, loser }
}

describe('two editors accepting one suggestion at once', () => {
  it('the writer of the acceptance not kept deletes its words: every replica reads them once', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    syncAll([alice, bob, carol])
    expect(text(alice)).toBe(`Day 1: museum. Day 2: ${WORDS}${WORDS}. Day 3: home.`)

    const kept = keptWriter(alice, id)
    const [winner, loser] = kept === bob.clientID ? [bob, carol] : [carol, bob]
    expect(settledBy(alice, winner, id)).toEqual({})
    expect(settledBy(alice, loser, id)).toEqual({ remove: { client: loser.clientID, clock: 0, len: WORDS.length } })
    apply(loser, id, settledBy(loser, loser, id))
    syncAll([alice, bob, carol])

    for (const r of [alice, bob, carol]) {
      expect(text(r)).toBe(AFTER)
      expect(statusOf(r, id)).toBe('accepted')
      expect(settledBy(r, loser, id)).toEqual({})
    }
    expect(acceptedSpans(alice).map((s) => s.client)).toEqual([kept])
  })

  it('three at once: each writer not kept deletes its own', () => {
    const { alice, id, replicas } = suggested(3)
    replicas.forEach((r, i) => acceptSuggestion(r, id, 10 + i))
    syncAll([alice, ...replicas])
    for (const r of replicas) apply(r, id, settledBy(r, r, id))
    syncAll([alice, ...replicas])
    for (const r of [alice, ...replicas]) expect(text(r)).toBe(AFTER)
  })

  it('found when one accepter had already seen a letter typed right after the range', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    const after = BEFORE.indexOf('. Day 3')
    alice.getText('text').insert(after, '!')
    syncDocs(alice, bob)
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    syncAll([alice, bob, carol])
    for (const r of [bob, carol]) apply(r, id, settledBy(r, r, id))
    syncAll([alice, bob, carol])
    expect(text(alice).split(WORDS)).toHaveLength(2)
    expect(text(alice).length).toBe(AFTER.length + 1)
  })

  it('a duplicate someone already edited is left whole: both copies stay, nothing of the edit lost', () => {
    const { alice, id, bob, carol, loser } = acceptedTwice()
    // Alice deletes the "a " of the copy not kept before its writer settles.
    removeInserted(alice, [{ client: loser.clientID, clock: 0, len: 2 }])
    syncAll([alice, bob, carol])
    expect(settledBy(alice, loser, id)).toEqual({})
    expect(text(alice).length).toBe(AFTER.length + WORDS.length - 2)
  })

  it('a later decision naming another copy of the words elsewhere deletes nothing', () => {
    const { alice, id, replicas } = suggested(1)
    const [bob] = replicas as [Y.Doc]
    acceptSuggestion(bob, id, 10)
    syncDocs(alice, bob)
    // A hostile editor writes the words at the end and a decision over Bob's naming them.
    const mallory = docOf(CAROL_TAG, 9)
    syncDocs(alice, mallory)
    const clock = Y.getState(mallory.store, mallory.clientID)
    mallory.getText('text').insert(text(mallory).length, WORDS)
    reviewMap(mallory).set(`d:${id}`, {
      v: 1,
      status: 'accepted',
      at: 12,
      applied: { client: mallory.clientID, clock, len: WORDS.length },
    })
    syncAll([alice, bob, mallory])
    expect(settledBy(alice, bob, id)).toEqual({})
    // And a rejection written over Bob's acceptance is a later decision: not answered.
    reviewMap(mallory).set(`d:${id}`, { v: 1, status: 'rejected', at: 13 })
    syncAll([alice, bob, mallory])
    expect(settledBy(alice, bob, id)).toEqual({})
  })

  it('an own acceptance further back than the chain limit is not looked for', () => {
    const { alice, id, loser } = acceptedTwice()
    expect(settlementOf(alice, id, mineOf(loser), 1)).toEqual({})
    expect(settlementOf(alice, id, mineOf(loser), 2).remove?.client).toBe(loser.clientID)
  })

  it('an empty replacement accepted twice settles nothing (both deleted the same letters)', () => {
    const { alice, id, replicas } = suggested(2, '')
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    syncAll([alice, bob, carol])
    expect(text(alice)).toBe('Day 1: museum. Day 2: . Day 3: home.')
    for (const r of [bob, carol]) expect(settledBy(alice, r, id)).toEqual({})
  })

  it('removes from a copy decoded from an update, whose roots no binding has typed yet', () => {
    const { alice, id, loser } = acceptedTwice()
    const work = new Y.Doc({ gc: false })
    Y.applyUpdate(work, Y.encodeStateAsUpdate(alice))
    const s = settledBy(work, loser, id)
    const before = Y.encodeStateVector(work)
    removeInserted(work, [s.remove!])
    Y.applyUpdate(alice, Y.encodeStateAsUpdate(work, before))
    expect(text(alice)).toBe(AFTER)
  })
})

/** Bob accepted while Carol rejected, and every replica holds both. */
function acceptedWhileRejected() {
  const { alice, id, replicas } = suggested(2)
  const [bob, carol] = replicas as [Y.Doc, Y.Doc]
  acceptSuggestion(bob, id, 10)
  decideWithout(carol, id, 'rejected', 11)
  syncAll([alice, bob, carol])
  return { alice, id, bob, carol }
}

describe('an editor accepting while another rejects', () => {
  it('when the rejection is kept, the acceptance is written again under its own writer', () => {
    const { alice, id, bob, carol } = acceptedWhileRejected()
    // Carol's client id is the larger: Yjs keeps her decision, and Bob's words stay.
    expect(statusOf(alice, id)).toBe('rejected')
    expect(text(alice)).toBe(AFTER)
    const s = settledBy(alice, bob, id)
    expect(s.reassert?.client).toBe(bob.clientID)
    expect(settledBy(alice, carol, id)).toEqual({})

    apply(bob, id, s)
    syncAll([alice, bob, carol])
    for (const r of [alice, bob, carol]) {
      expect(text(r)).toBe(AFTER)
      expect(statusOf(r, id)).toBe('accepted')
      expect(settledBy(r, bob, id)).toEqual({})
    }
    expect(acceptedSpans(alice).map((x) => x.client)).toEqual([bob.clientID])
  })

  it('two devices of one account writing it again write the same: the replicas agree', () => {
    const { alice, id, bob } = acceptedWhileRejected()
    const device = docOf(BOB_TAG, 8)
    syncAll([alice, device])
    const s = settledBy(alice, bob, id)
    // Both devices write under the acceptance's own id (a copy set to it after the state, as the sidecar does).
    const copies = [bob, device].map((from) => {
      const work = new Y.Doc({ gc: false })
      Y.applyUpdate(work, Y.encodeStateAsUpdate(from))
      work.clientID = s.reassert!.client
      const before = Y.encodeStateVector(work)
      apply(work, id, s)
      return Y.encodeStateAsUpdate(work, before)
    })
    expect(copies[0]).toEqual(copies[1])
  })

  it('two accept while a third rejects: both write again, then the one not kept is taken back', () => {
    const { alice, id, replicas } = suggested(3)
    const [bob, carol, dave] = replicas as [Y.Doc, Y.Doc, Y.Doc]
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    decideWithout(dave, id, 'rejected', 12)
    syncAll([alice, bob, carol, dave])
    for (let round = 0; round < 3; round += 1) {
      for (const r of [bob, carol]) apply(r, id, settledBy(r, r, id))
      syncAll([alice, bob, carol, dave])
    }
    for (const r of [alice, bob, carol, dave]) {
      expect(text(r)).toBe(AFTER)
      expect(statusOf(r, id)).toBe('accepted')
    }
  })

  it('two accept while a third rejects, one accepter offline until the other wrote again: still once', () => {
    const { alice, id, replicas } = suggested(2)
    const [bob, carol] = replicas as [Y.Doc, Y.Doc]
    // The rejecter's id is the largest: Yjs keeps the rejection.
    const dave = docOf(CAROL_TAG, 9)
    syncDocs(alice, dave)
    acceptSuggestion(bob, id, 10)
    acceptSuggestion(carol, id, 11)
    decideWithout(dave, id, 'rejected', 12)
    syncAll([alice, bob, dave])
    expect(statusOf(alice, id)).toBe('rejected')
    apply(bob, id, settledBy(bob, bob, id))
    syncAll([alice, bob, dave])
    // Carol comes back: she hears the rejection and Bob's rewrite over it together.
    syncAll([alice, bob, carol, dave])
    expect(text(alice)).toBe(`Day 1: museum. Day 2: ${WORDS}${WORDS}. Day 3: home.`)
    apply(carol, id, settledBy(carol, carol, id))
    syncAll([alice, bob, carol, dave])
    for (const r of [alice, bob, carol, dave]) {
      expect(text(r)).toBe(AFTER)
      expect(statusOf(r, id)).toBe('accepted')
    }
  })

  it('answers a rejection made to look concurrent at most once', () => {
    const { alice, id, bob } = acceptedWhileRejected()
    for (let round = 0; round < 3; round += 1) {
      // A copy from before Bob writes again: its rejection has the same origin as his rewrite.
      const fork = docOf(CAROL_TAG, 20 + round)
      syncDocs(alice, fork)
      apply(bob, id, settledBy(bob, bob, id))
      reviewMap(fork).set(`d:${id}`, { v: 1, status: 'rejected', at: 20 + round })
      syncAll([alice, bob, fork])
    }
    const decisions = (bob.store.clients.get(bob.clientID) ?? []).filter(
      (st) => st instanceof Y.Item && st.parentSub === `d:${id}`,
    )
    // The acceptance and one rewrite, however many rejections followed.
    expect(decisions).toHaveLength(2)
  })

  it('a duplicate someone typed inside is left whole: nothing typed is stranded', () => {
    const { alice, id, loser } = acceptedTwice()
    // Alice types inside the copy not kept, after its "a ".
    const inside = Y.createAbsolutePositionFromRelativePosition(
      Y.createRelativePositionFromJSON({ item: { client: loser.clientID, clock: 2 } }),
      alice,
    )
    alice.getText('text').insert(inside?.index ?? 0, 'brisk ')
    expect(settledBy(alice, loser, id)).toEqual({})
  })
})
