import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { acceptedSpans, acceptSuggestion, baseOf, createSuggestion } from '@e2e-col/review'
import { authorLabel, creditLabel, runsOf, type AuthorView } from './authors.ts'

/** A version's time in UTC, so the labels read the same in every time zone. */
const time = (ms: number) => new Date(ms).toISOString().slice(11, 19)

describe('who wrote this: labels', () => {
  it('names a verified author, this account as You, and says when an author is not verified', () => {
    expect(authorLabel({ number: '+1555', name: 'Bob', you: false, verified: true })).toMatchObject({
      label: 'Bob',
      verified: true,
    })
    expect(authorLabel({ number: '+1556', name: null, you: true, verified: true }).label).toBe('You')
    expect(authorLabel({ verified: false, relayedBy: { number: '+1557', name: 'Carol' } })).toMatchObject({
      label: 'not verified: relayed by Carol',
      verified: false,
    })
    expect(authorLabel(undefined)).toMatchObject({ label: 'unknown author (not verified)', verified: false })
  })

  it("a restore's letters are shown as restored by their restorer from the version's time, not as their own writing", () => {
    const at = Date.UTC(2026, 11, 6, 17, 2, 41)
    const alice = { number: '+1555', name: 'Alice', you: false, verified: true as const, restoredFrom: at }
    expect(authorLabel(alice, time)).toMatchObject({
      label: 'restored by Alice from the version of 17:02:41',
      verified: true,
    })
    expect(authorLabel({ ...alice, you: true }, time).label).toBe('restored by You from the version of 17:02:41')
    const relayed = { verified: false, relayedBy: { number: '+1557', name: 'Carol' }, restoredFrom: at }
    expect(authorLabel(relayed, time).label).toBe(
      'not verified: restored from the version of 17:02:41, relayed by Carol',
    )
  })
})

describe('who wrote this: runs of text', () => {
  it('splits a text into the runs each client id wrote, skipping deleted text', () => {
    const alice = new Y.Doc()
    alice.clientID = 1
    const bob = new Y.Doc()
    bob.clientID = 2
    alice.getText('t').insert(0, 'Hello ')
    Y.applyUpdate(bob, Y.encodeStateAsUpdate(alice))
    bob.getText('t').insert(6, 'world')
    Y.applyUpdate(alice, Y.encodeStateAsUpdate(bob))
    alice.getText('t').insert(11, '!!')
    alice.getText('t').delete(0, 1)
    const runs = runsOf(alice.getText('t'))
    expect(runs).toEqual([
      { from: 0, to: 5, client: 1 },
      { from: 5, to: 10, client: 2 },
      { from: 10, to: 12, client: 1 },
    ])
    expect(alice.getText('t').toString()).toBe('ello world!!')
  })
})

/** Alice's agent suggests "picnic" for "long hike"; Bob accepts it and types "!" after it. */
function accepted(): { bob: Y.Doc; text: Y.Text } {
  const alice = new Y.Doc()
  alice.clientID = 1
  const bob = new Y.Doc()
  bob.clientID = 2
  alice.getText('text').insert(0, 'Day 2: long hike.')
  const id = createSuggestion(alice, {
    target: { name: 'text', kind: 'text' },
    base: baseOf(alice),
    find: 'long hike',
    replace: 'picnic',
    agent: 'Claude',
    at: 1,
    random: () => 7,
  })
  Y.applyUpdate(bob, Y.encodeStateAsUpdate(alice))
  acceptSuggestion(bob, id, 2)
  const text = bob.getText('text')
  text.insert(text.toString().indexOf('.'), '!')
  return { bob, text }
}

describe('who wrote this: accepted suggestions', () => {
  it("the accepted letters are a run of their own carrying the suggestion, Bob's typing after them his", () => {
    const { bob, text } = accepted()
    expect(text.toString()).toBe('Day 2: picnic!.')
    const runs = runsOf(text, acceptedSpans(bob))
    expect(runs.map((r) => [text.toString().slice(r.from, r.to), r.client, r.credit?.suggestion.writer])).toEqual([
      ['Day 2: ', 1, undefined],
      ['picnic', 2, 1],
      ['!', 2, undefined],
      ['.', 1, undefined],
    ])
  })

  it('the label names the agent for its person and who accepted, verified only when both are', () => {
    const { bob, text } = accepted()
    const credit = runsOf(text, acceptedSpans(bob)).find((r) => r.credit !== undefined)?.credit
    if (credit === undefined) throw new Error('no credited run')
    const authors = new Map<number, AuthorView>([
      [1, { number: '+1555', name: 'Alice', verified: true }],
      [2, { number: '+1556', name: 'Bob', you: true, verified: true }],
    ])
    expect(creditLabel(credit, authors)).toMatchObject({ label: 'Claude, for Alice, accepted by you', verified: true })
    authors.set(2, { verified: false, relayedBy: { number: '+1557', name: 'Carol' } })
    expect(creditLabel(credit, authors).verified).toBe(false)
  })
})
