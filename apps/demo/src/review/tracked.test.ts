import { acceptSuggestion, createSuggestion, decideWithout, readText, type Target } from '@e2e-col/review'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { AuthorView } from '../page/authors.ts'
import { colourFor } from '../page/presence.ts'
import { hoverText, trackedOf, unknownWriters } from './tracked.ts'

const T: Target = { name: 'text', kind: 'text' }
const ALICE = 101
const BOB = 202

function aliceDoc(text: string): Y.Doc {
  const doc = new Y.Doc({ gc: false })
  doc.clientID = ALICE
  doc.getText('text').insert(0, text)
  return doc
}

let n = 7
const random = () => (n = (n * 48271) % 2147483647)

function suggest(doc: Y.Doc, find: string, replace: string, extra: { note?: string; agent?: string } = {}): string {
  return createSuggestion(doc, { target: T, base: readText(doc, T).base, find, replace, at: n, random, ...extra })
}

const names = (you: number): Map<number, AuthorView> =>
  new Map<number, AuthorView>([
    [ALICE, { verified: true, number: '+1', name: 'Alice', you: you === ALICE }],
    [BOB, { verified: true, number: '+2', name: 'Bob', you: you === BOB }],
  ])

describe('what a page shows of suggestions', () => {
  it("numbers them, names an agent's as 'Claude, for Alice' (for you on Alice's page) in the agent's colour", () => {
    const doc = aliceDoc('Day 1: museum. Day 2: long hike.')
    suggest(doc, 'long hike', 'picnic', { note: 'shorter', agent: 'Claude' })
    suggest(doc, 'museum', 'gallery')
    const onBob = trackedOf(doc, T, names(BOB))
    expect(onBob.map((t) => [t.number, t.by, t.find, t.replace, t.status])).toEqual([
      [1, 'Claude, for Alice', 'long hike', 'picnic', 'open'],
      [2, 'Alice', 'museum', 'gallery', 'open'],
    ])
    expect(onBob[0]?.colour).toBe(colourFor('Claude'))
    expect(onBob[1]?.colour).toBe(colourFor('Alice'))
    expect(trackedOf(doc, T, names(ALICE)).map((t) => t.by)).toEqual(['Claude, for you', 'You'])
    expect(hoverText(onBob[0]!)).toBe('1. Claude, for Alice suggests: replace “long hike” with “picnic”\nshorter')
  })

  it('places a range where its quote is now, after a concurrent edit before it, and marks it stale when the quote changes', () => {
    const alice = aliceDoc('Day 1: museum.')
    suggest(alice, 'museum', 'gallery')
    const bob = new Y.Doc({ gc: false })
    bob.clientID = BOB
    Y.applyUpdate(bob, Y.encodeStateAsUpdate(alice))
    bob.getText('text').insert(0, 'Trip. ')
    const [moved] = trackedOf(bob, T, names(BOB))
    expect(moved?.place?.index).toBe('Trip. Day 1: '.length)
    expect(moved?.place?.len).toBe('museum'.length)
    expect(moved?.stale).toBe(false)

    bob.getText('text').delete(bob.getText('text').toString().indexOf('useum'), 1)
    const [stale] = trackedOf(bob, T, names(BOB))
    expect(stale?.stale).toBe(true)
    expect(hoverText(stale!)).toMatch(/Stale: the quoted text changed since, so it cannot be accepted\.$/)
  })

  it('decided suggestions have no place (no marks) and say how they were decided; other roots are not listed', () => {
    const doc = aliceDoc('one two three')
    const a = suggest(doc, 'one', '1')
    const b = suggest(doc, 'two', '2')
    acceptSuggestion(doc, a, 10)
    decideWithout(doc, b, 'rejected', 11)
    const shown = trackedOf(doc, T, names(BOB))
    expect(shown.map((t) => [t.status, t.place])).toEqual([
      ['accepted', undefined],
      ['rejected', undefined],
    ])
    expect(trackedOf(doc, { name: 'rich', kind: 'xml' }, names(BOB))).toEqual([])
  })

  it('names the writers the sidecar has not named yet', () => {
    const doc = aliceDoc('one two')
    suggest(doc, 'one', '1')
    expect(unknownWriters(doc, new Map())).toEqual([ALICE])
    expect(unknownWriters(doc, names(BOB))).toEqual([])
  })
})
