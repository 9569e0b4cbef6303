import fc from 'fast-check'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { baseOf } from './base.ts'
import { addComment, listComments } from './comments.ts'
import { checkReviewOnlyUpdate } from './review-only.ts'
import { reviewMap, type Target } from './structure.ts'
import { acceptSuggestion, createSuggestion, listSuggestions } from './suggestions.ts'
import { ALICE_TAG, BOB_TAG, CAROL_TAG, counter, docOf, since, syncDocs } from './testing-docs.ts'

const TEXT: Target = { name: 'text', kind: 'text' }
const PREFIX = 'aaaa bbbb '
const QUOTE = '<QUOTE>'
const SUFFIX = ' cccc dddd'

/** An edit outside the quote: `before` picks the part of the text, `at` and `len` where in it. */
const outsideEdit = fc.record({
  before: fc.boolean(),
  insert: fc.boolean(),
  at: fc.nat(),
  len: fc.integer({ min: 1, max: 3 }),
  text: fc.string({ unit: fc.constantFrom('x', 'y', ' ', 'é'), minLength: 1, maxLength: 4 }),
})
type Edit = typeof outsideEdit extends fc.Arbitrary<infer T> ? T : never

/** Applies `e` to Bob's text and to the model (prefix, suffix), outside the quote. */
function applyOutside(t: Y.Text, model: { prefix: string; suffix: string }, e: Edit): void {
  const part = e.before ? model.prefix : model.suffix
  const offset = e.before ? 0 : model.prefix.length + QUOTE.length
  if (e.insert) {
    const at = e.at % (part.length + 1)
    t.insert(offset + at, e.text)
    const next = part.slice(0, at) + e.text + part.slice(at)
    if (e.before) model.prefix = next
    else model.suffix = next
  } else if (part.length > 0) {
    const at = e.at % part.length
    const len = Math.min(e.len, part.length - at)
    t.delete(offset + at, len)
    const next = part.slice(0, at) + part.slice(at + len)
    if (e.before) model.prefix = next
    else model.suffix = next
  }
}

describe('properties of the review model', () => {
  it('edits outside the quote, concurrent with the suggestion, never make it stale; accepting converges to the model', () => {
    fc.assert(
      fc.property(fc.array(outsideEdit, { maxLength: 12 }), fc.string({ maxLength: 6 }), (edits, replace) => {
        fc.pre(replace !== QUOTE)
        const alice = docOf(ALICE_TAG)
        const bob = docOf(BOB_TAG)
        alice.getText('text').insert(0, PREFIX + QUOTE + SUFFIX)
        syncDocs(alice, bob)
        const id = createSuggestion(alice, {
          target: TEXT,
          base: baseOf(alice),
          find: QUOTE,
          replace,
          at: 1,
          random: counter(),
        })
        const model = { prefix: PREFIX, suffix: SUFFIX }
        for (const e of edits) applyOutside(bob.getText('text'), model, e)
        syncDocs(alice, bob)
        expect(listSuggestions(bob)[0]?.stale).toBe(false)
        acceptSuggestion(bob, id, 2)
        syncDocs(alice, bob)
        const expected = model.prefix + replace + model.suffix
        expect(alice.getText('text').toString()).toBe(expected)
        expect(bob.getText('text').toString()).toBe(expected)
      }),
      { numRuns: 150 },
    )
  })

  it('deleting any character of the quote makes the suggestion stale and unacceptable, on every replica', () => {
    fc.assert(
      fc.property(fc.nat({ max: QUOTE.length - 1 }), fc.integer({ min: 1, max: 3 }), (at, len) => {
        const alice = docOf(ALICE_TAG)
        const bob = docOf(BOB_TAG)
        alice.getText('text').insert(0, PREFIX + QUOTE + SUFFIX)
        syncDocs(alice, bob)
        const id = createSuggestion(alice, {
          target: TEXT,
          base: baseOf(alice),
          find: QUOTE,
          replace: 'r',
          at: 1,
          random: counter(),
        })
        bob.getText('text').delete(PREFIX.length + at, len)
        syncDocs(alice, bob)
        for (const d of [alice, bob]) {
          expect(listSuggestions(d)[0]?.stale).toBe(true)
          expect(() => acceptSuggestion(d, id, 2)).toThrow(
            expect.objectContaining({ code: 'SUGGESTION_QUOTE_CHANGED' }),
          )
        }
      }),
      { numRuns: 60 },
    )
  })

  it('a comment keeps its range through outside edits, and is orphaned (with its quote) once the range is deleted', () => {
    fc.assert(
      fc.property(fc.array(outsideEdit, { maxLength: 10 }), fc.boolean(), (edits, deleteIt) => {
        const alice = docOf(ALICE_TAG)
        const bob = docOf(BOB_TAG)
        alice.getText('text').insert(0, PREFIX + QUOTE + SUFFIX)
        syncDocs(alice, bob)
        addComment(alice, {
          target: TEXT,
          index: PREFIX.length,
          length: QUOTE.length,
          body: 'b',
          at: 1,
          random: counter(),
        })
        const model = { prefix: PREFIX, suffix: SUFFIX }
        for (const e of edits) applyOutside(bob.getText('text'), model, e)
        if (deleteIt) bob.getText('text').delete(model.prefix.length, QUOTE.length)
        syncDocs(alice, bob)
        for (const d of [alice, bob]) {
          const [c] = listComments(d)
          expect(c?.entry.quote).toBe(QUOTE)
          expect(c?.orphaned).toBe(deleteIt)
          expect(c?.current).toBe(deleteIt ? '' : QUOTE)
        }
      }),
      { numRuns: 120 },
    )
  })

  it("whatever a commenter's page does, an update that passes the check changes no content when applied", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('comment' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('type' as const), at: fc.nat(), text: fc.constantFrom('x', 'yz') }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('format' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('map' as const), key: fc.constantFrom('c:abcdefgh00', 'x', 's:zz') }),
    )
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 6 }), (ops) => {
        const alice = docOf(ALICE_TAG)
        alice.getText('text').insert(0, 'some shared text')
        const carol = docOf(CAROL_TAG)
        syncDocs(alice, carol)
        const before = Y.encodeStateVector(carol)
        const t = carol.getText('text')
        const random = counter(11)
        let content = false
        for (const o of ops) {
          const n = t.length
          if (o.kind === 'comment' && n > 0)
            addComment(carol, { target: TEXT, index: o.at % n, length: 1, body: 'c', at: 1, random })
          if (o.kind === 'type') {
            t.insert(o.at % (n + 1), o.text)
            content = true
          }
          if (o.kind === 'delete' && n > 0) t.delete(o.at % n, 1)
          if (o.kind === 'format' && n > 0) {
            t.format(o.at % n, 1, { bold: true })
            content = true
          }
          if (o.kind === 'map') reviewMap(carol).set(o.key, { v: 1 })
        }
        const update = since(carol, before)
        const text = alice.getText('text').toString()
        const delta = JSON.stringify(alice.getText('text').toDelta())
        const r = checkReviewOnlyUpdate(alice, update)
        if (content) expect(r.ok).toBe(false)
        if (r.ok) {
          Y.applyUpdate(alice, r.update)
          expect(alice.getText('text').toString()).toBe(text)
          expect(JSON.stringify(alice.getText('text').toDelta())).toBe(delta)
        }
      }),
      { numRuns: 200 },
    )
  })
})
