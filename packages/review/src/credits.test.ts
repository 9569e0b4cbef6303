import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { baseOf } from './base.ts'
import { acceptedSpans } from './credits.ts'
import { reviewMap, type Target } from './structure.ts'
import { acceptSuggestion, createSuggestion } from './suggestions.ts'
import { ALICE_TAG, BOB_TAG, counter, docOf, syncDocs } from './testing-docs.ts'

const TEXT: Target = { name: 'text', kind: 'text' }

/** Alice's agent suggests `find` → `replace` in `text`; Bob's replica holds it. */
function suggested(text: string, find: string, replace: string): { alice: Y.Doc; bob: Y.Doc; id: string } {
  const alice = docOf(ALICE_TAG)
  const bob = docOf(BOB_TAG)
  alice.getText('text').insert(0, text)
  const id = createSuggestion(alice, {
    target: TEXT,
    base: baseOf(alice),
    find,
    replace,
    agent: 'Claude',
    at: 1,
    random: counter(),
  })
  syncDocs(alice, bob)
  return { alice, bob, id }
}

describe('credit for accepted suggestions', () => {
  it("the letters Bob's acceptance inserted are the suggestion's, on every replica, decided by Bob", () => {
    const { alice, bob, id } = suggested('Day 2: long hike and a picnic.', 'long hike and a picnic', 'picnic')
    acceptSuggestion(bob, id, 2)
    syncDocs(alice, bob)
    for (const doc of [alice, bob]) {
      const [span] = acceptedSpans(doc)
      expect(span).toMatchObject({ client: bob.clientID, len: 'picnic'.length })
      expect(span?.suggestion).toMatchObject({ id, writer: alice.clientID, decidedBy: bob.clientID })
      expect(span?.suggestion.entry.agent).toBe('Claude')
    }
  })

  it('still holds when Bob types on right after the accepted text (his typing is not credited)', () => {
    const { bob, id } = suggested('a b c', 'b', 'beta')
    acceptSuggestion(bob, id, 2)
    const t = bob.getText('text')
    t.insert(t.toString().indexOf('beta') + 4, '!!')
    expect(t.toString()).toBe('a beta!! c')
    expect(acceptedSpans(bob)).toHaveLength(1)
    expect(acceptedSpans(bob)[0]?.len).toBe(4)
  })

  it('a decision that names letters of another client, or letters reading otherwise, credits nothing', () => {
    const { alice, bob, id } = suggested('one two three', 'two', 'TWO')
    // Bob writes his own "XYZ" and a forged decision naming it, then one naming Alice's letters.
    const t = bob.getText('text')
    const clock = Y.getState(bob.store, bob.clientID)
    t.insert(0, 'XYZ')
    reviewMap(bob).set(`d:${id}`, { v: 1, status: 'accepted', at: 2, applied: { client: bob.clientID, clock, len: 3 } })
    expect(acceptedSpans(bob)).toEqual([])
    reviewMap(bob).set(`d:${id}`, {
      v: 1,
      status: 'accepted',
      at: 3,
      applied: { client: alice.clientID, clock: 0, len: 3 },
    })
    syncDocs(alice, bob)
    expect(acceptedSpans(alice)).toEqual([])
  })

  it('a rejected suggestion and an accepted deletion credit nothing', () => {
    const { bob, id } = suggested('keep this', ' this', '')
    acceptSuggestion(bob, id, 2)
    expect(bob.getText('text').toString()).toBe('keep')
    expect(acceptedSpans(bob)).toEqual([])
  })
})
