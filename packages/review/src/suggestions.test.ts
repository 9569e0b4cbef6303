import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { baseOf } from './base.ts'
import { ReviewError } from './errors.ts'
import { REVIEW_LIMITS } from './limits.ts'
import { readText } from './read-text.ts'
import { acceptSuggestion, createSuggestion, decideWithout, listSuggestions } from './suggestions.ts'
import { writerOf, reviewMap, type Target } from './structure.ts'
import { ALICE_TAG, BOB_TAG, counter, docOf, syncDocs } from './testing-docs.ts'

const TEXT: Target = { name: 'text', kind: 'text' }

function codeOf(f: () => unknown): string | undefined {
  try {
    f()
  } catch (e) {
    if (e instanceof ReviewError) return e.detail === undefined ? e.code : `${e.code}:${e.detail}`
    throw e
  }
  return undefined
}

function twoReplicas(text: string): { alice: Y.Doc; bob: Y.Doc } {
  const alice = docOf(ALICE_TAG)
  const bob = docOf(BOB_TAG)
  alice.getText('text').insert(0, text)
  syncDocs(alice, bob)
  return { alice, bob }
}

const suggest = (doc: Y.Doc, base: string, find: string, replace: string, more: object = {}): string =>
  createSuggestion(doc, { target: TEXT, base, find, replace, note: 'why', at: 1, random: counter(), ...more })

describe('suggestions on a Y.Text', () => {
  it('a suggestion made at the base the text was read at is listed open, by its writer, with its note', () => {
    const { alice } = twoReplicas('Day 1: museum. Day 2: long hike and a picnic.')
    const { text, base } = readText(alice, TEXT)
    expect(text).toBe('Day 1: museum. Day 2: long hike and a picnic.')
    const id = suggest(alice, base, 'long hike and a picnic', 'picnic', { agent: 'Claude' })
    const [s] = listSuggestions(alice)
    expect(s).toMatchObject({ id, status: 'open', stale: false, writer: alice.clientID })
    expect(s?.entry).toMatchObject({ find: 'long hike and a picnic', replace: 'picnic', note: 'why', agent: 'Claude' })
  })

  it('find that does not occur, or occurs twice, is SUGGESTION_STALE with the reason', () => {
    const { alice } = twoReplicas('ab ab cd')
    const base = baseOf(alice)
    expect(codeOf(() => suggest(alice, base, 'xy', 'z'))).toBe('SUGGESTION_STALE:absent')
    expect(codeOf(() => suggest(alice, base, 'ab', 'z'))).toBe('SUGGESTION_STALE:ambiguous')
    expect(codeOf(() => suggest(alice, base, 'cd', 'z'))).toBeUndefined()
  })

  it('a quote edited since base is SUGGESTION_STALE:changed, an edit elsewhere is not', () => {
    const { alice, bob } = twoReplicas('one two three')
    const base = baseOf(alice)
    bob.getText('text').insert(0, 'zero ') // elsewhere
    bob.getText('text').delete(bob.getText('text').toString().indexOf('two') + 1, 1) // "to"
    bob.getText('text').insert(bob.getText('text').toString().indexOf('to') + 1, 'w') // "two" again, new chars
    syncDocs(alice, bob)
    expect(alice.getText('text').toString()).toBe('zero one two three')
    expect(codeOf(() => suggest(alice, base, 'two', '2'))).toBe('SUGGESTION_STALE:changed')
    expect(codeOf(() => suggest(alice, base, 'three', '3'))).toBeUndefined()
  })

  it('a character deleted from inside the quote since base makes it stale even when find now matches', () => {
    const { alice, bob } = twoReplicas('a big cat')
    const base = baseOf(alice)
    bob.getText('text').delete(2, 4) // "a cat"
    syncDocs(alice, bob)
    expect(codeOf(() => suggest(alice, base, 'a cat', 'a dog'))).toBe('SUGGESTION_STALE:changed')
  })

  it('a typo fixed before base does not make later suggestions on that range stale', () => {
    const alice = docOf(ALICE_TAG)
    const t = alice.getText('text')
    t.insert(0, 'helxlo world')
    t.delete(3, 1)
    const base = baseOf(alice)
    expect(codeOf(() => suggest(alice, base, 'hello world', 'hi'))).toBeUndefined()
  })

  it('accepting applies the replacement on every replica in one transaction and records who accepted', () => {
    const { alice, bob } = twoReplicas('Day 2: long hike and a picnic.')
    const id = suggest(bob, baseOf(bob), 'long hike and a picnic', 'picnic')
    syncDocs(alice, bob)
    let transactions = 0
    alice.on('afterTransaction', () => (transactions += 1))
    const decision = acceptSuggestion(alice, id, 5)
    expect(transactions).toBe(1)
    syncDocs(alice, bob)
    expect(bob.getText('text').toString()).toBe('Day 2: picnic.')
    const [s] = listSuggestions(bob)
    expect(s).toMatchObject({ status: 'accepted', writer: bob.clientID, decidedBy: alice.clientID })
    // The inserted clocks are the accepter's, named in the decision for "who wrote this".
    expect(decision.applied).toEqual({ client: alice.clientID, clock: expect.any(Number), len: 'picnic'.length })
    expect(writerOf(reviewMap(bob), `d:${id}`)).toBe(alice.clientID)
  })

  it('a suggestion whose quote changed after it was made is stale and refused on accept', () => {
    const { alice, bob } = twoReplicas('one two three')
    const id = suggest(alice, baseOf(alice), 'two', '2')
    syncDocs(alice, bob)
    bob.getText('text').insert(5, 'X') // inside "two"
    syncDocs(alice, bob)
    expect(listSuggestions(alice)[0]?.stale).toBe(true)
    expect(codeOf(() => acceptSuggestion(alice, id, 2))).toBe('SUGGESTION_QUOTE_CHANGED')
    expect(alice.getText('text').toString()).toBe('one tXwo three')
  })

  it('text typed next to the quote does not make it stale', () => {
    const { alice, bob } = twoReplicas('one two three')
    const id = suggest(alice, baseOf(alice), 'two', '2')
    syncDocs(alice, bob)
    bob.getText('text').insert(4, '[')
    bob.getText('text').insert(8, ']')
    syncDocs(alice, bob)
    expect(listSuggestions(alice)[0]?.stale).toBe(false)
    acceptSuggestion(alice, id, 2)
    expect(alice.getText('text').toString()).toBe('one [2] three')
  })

  it('rejecting changes nothing but the status; a decided suggestion cannot be decided again', () => {
    const { alice } = twoReplicas('one two')
    const id = suggest(alice, baseOf(alice), 'two', '2')
    decideWithout(alice, id, 'rejected', 3)
    expect(alice.getText('text').toString()).toBe('one two')
    expect(listSuggestions(alice)[0]?.status).toBe('rejected')
    expect(codeOf(() => acceptSuggestion(alice, id, 4))).toBe('SUGGESTION_DECIDED')
    expect(codeOf(() => acceptSuggestion(alice, 'zzzzzzzz', 4))).toBe('REVIEW_NOT_FOUND')
  })

  it('a deletion (empty replace) is accepted as a deletion', () => {
    const { alice } = twoReplicas('keep drop keep')
    const id = suggest(alice, baseOf(alice), 'drop ', '')
    expect(acceptSuggestion(alice, id, 2).applied?.len).toBe(0)
    expect(alice.getText('text').toString()).toBe('keep keep')
  })

  it('bad input gets stable codes: empty find, same text, bad base, sizes over the bounds', () => {
    const { alice } = twoReplicas('one two')
    const base = baseOf(alice)
    expect(codeOf(() => suggest(alice, base, '', 'x'))).toBe('REVIEW_BAD_INPUT')
    expect(codeOf(() => suggest(alice, base, 'two', 'two'))).toBe('REVIEW_BAD_INPUT')
    expect(codeOf(() => suggest(alice, 'not!base', 'two', '2'))).toBe('REVIEW_BAD_BASE')
    expect(codeOf(() => suggest(alice, 'AAAA', 'two', '2'))).toBe('REVIEW_BAD_BASE')
    expect(codeOf(() => suggest(alice, 'A'.repeat(REVIEW_LIMITS.maxBaseChars + 1), 'two', '2'))).toBe('REVIEW_BAD_BASE')
    const big = 'x'.repeat(REVIEW_LIMITS.maxQuoteBytes + 1)
    expect(codeOf(() => suggest(alice, base, 'two', big))).toBe('REVIEW_TOO_LARGE')
    const note = 'é'.repeat(REVIEW_LIMITS.maxNoteBytes / 2 + 1)
    expect(codeOf(() => suggest(alice, base, 'two', '2', { note }))).toBe('REVIEW_TOO_LARGE')
    expect(codeOf(() => suggest(alice, base, 'two', '2', { agent: 'x'.repeat(65) }))).toBe('REVIEW_BAD_INPUT')
    expect(listSuggestions(alice)).toEqual([])
  })

  it(`one writer keeps at most ${REVIEW_LIMITS.maxOpenSuggestionsPerWriter} open suggestions; another page of the same account counts too`, () => {
    const words = Array.from({ length: REVIEW_LIMITS.maxOpenSuggestionsPerWriter + 1 }, (_, i) => `w${i}w`)
    const { alice } = twoReplicas(words.join(' '))
    const random = counter(7)
    const base = baseOf(alice)
    for (const w of words.slice(0, -1)) suggest(alice, base, w, 'x', { random })
    const second = docOf(ALICE_TAG, 2)
    Y.applyUpdate(second, Y.encodeStateAsUpdate(alice))
    expect(codeOf(() => suggest(second, base, words.at(-1) ?? '', 'x', { random }))).toBe('REVIEW_TOO_MANY')
    decideWithout(alice, listSuggestions(alice)[0]?.id ?? '', 'withdrawn', 9)
    Y.applyUpdate(second, Y.encodeStateAsUpdate(alice))
    expect(codeOf(() => suggest(second, base, words.at(-1) ?? '', 'x', { random }))).toBeUndefined()
  })

  it('malformed entries in the review map are skipped, not thrown', () => {
    const { alice } = twoReplicas('one two')
    reviewMap(alice).set('s:abcdefgh', { v: 1, find: 3 })
    reviewMap(alice).set('nonsense', 1)
    expect(listSuggestions(alice)).toEqual([])
  })
})

const RICH: Target = { name: 'prosemirror', kind: 'xml' }
function rich(): Y.Doc {
  const doc = docOf(ALICE_TAG)
  const frag = doc.getXmlFragment('prosemirror')
  const h = new Y.XmlElement('heading')
  h.setAttribute('level', '2')
  h.insert(0, [new Y.XmlText('Trip plan')])
  const p = new Y.XmlElement('paragraph')
  const t = new Y.XmlText('Day 2: long hike')
  p.insert(0, [t])
  frag.insert(0, [h, p])
  t.format(7, 4, { bold: true })
  return doc
}
describe('suggestions on a Y.XmlFragment (the rich page)', () => {
  it('reads as plain text and Markdown, and a suggestion inside one block applies there', () => {
    const doc = rich()
    const read = readText(doc, RICH)
    expect(read.text).toBe('Trip plan\nDay 2: long hike')
    expect(read.markdown).toBe('## Trip plan\nDay 2: **long** hike')
    const id = createSuggestion(doc, {
      target: RICH,
      base: read.base,
      find: 'long hike',
      replace: 'walk',
      at: 1,
      random: counter(),
    })
    acceptSuggestion(doc, id, 2)
    expect(readText(doc, RICH).text).toBe('Trip plan\nDay 2: walk')
  })

  it('find across two blocks is SUGGESTION_SPANS_BLOCKS', () => {
    const doc = rich()
    const { base } = readText(doc, RICH)
    expect(
      codeOf(() =>
        createSuggestion(doc, { target: RICH, base, find: 'plan\nDay', replace: 'x', at: 1, random: counter() }),
      ),
    ).toBe('SUGGESTION_SPANS_BLOCKS')
  })

  it('a target of the wrong type is REVIEW_BAD_INPUT, not a crash', () => {
    const doc = rich()
    expect(codeOf(() => readText(doc, { name: 'prosemirror', kind: 'text' }))).toBe('REVIEW_BAD_INPUT')
  })
})
