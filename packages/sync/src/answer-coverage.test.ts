import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { AnswerCoverage, OBSERVE_BUDGET, observeAll, prepareAnswer } from './answer-coverage.ts'
import { repeatedSections } from './repeated-sections.ts'

/** A document by one client: `parts` typed one after another, each its own update. */
function typed(client: number, parts: readonly string[]): { doc: Y.Doc; updates: Uint8Array[] } {
  const doc = new Y.Doc()
  doc.clientID = client
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  for (const part of parts) doc.getText('t').insert(doc.getText('t').length, part)
  return { doc, updates }
}

const nothing = (): AnswerCoverage => new AnswerCoverage(new Map())

describe('AnswerCoverage', () => {
  test('covers an asker once an answer gave it everything the document holds', () => {
    const { doc } = typed(1, ['hello ', 'world'])
    const coverage = nothing()
    expect(coverage.covers(doc)).toBe(false) // nothing seen yet
    coverage.observe(prepareAnswer(Y.encodeStateAsUpdate(doc)))
    expect(coverage.covers(doc)).toBe(true)
    expect(coverage.known()).toEqual(new Map([[1, 11]]))
  })

  test('an empty answer covers nothing the asker lacks', () => {
    const { doc } = typed(1, ['hello'])
    const coverage = nothing()
    coverage.observe(prepareAnswer(Y.encodeStateAsUpdate(new Y.Doc())))
    expect(coverage.answered).toBe(true)
    expect(coverage.covers(doc)).toBe(false)
  })

  test('a range beyond a gap covers nothing past the gap', () => {
    const { doc, updates } = typed(1, ['aa', 'bb', 'cc'])
    const coverage = nothing()
    // The first and the last update: the asker still lacks the middle one, so not the last either.
    coverage.observe(prepareAnswer(Y.mergeUpdates([updates[0] as Uint8Array, updates[2] as Uint8Array])))
    expect(coverage.known()).toEqual(new Map([[1, 2]]))
    expect(coverage.covers(doc)).toBe(false)
    coverage.observe(prepareAnswer(updates[1] as Uint8Array))
    coverage.observe(prepareAnswer(updates[2] as Uint8Array))
    expect(coverage.covers(doc)).toBe(true)
  })

  test('an answer without a deletion the document holds does not cover', () => {
    const { doc } = typed(1, ['hello world'])
    const insertions = Y.encodeStateAsUpdate(doc)
    doc.getText('t').delete(0, 6)
    const coverage = nothing()
    coverage.observe(prepareAnswer(insertions))
    expect(coverage.covers(doc)).toBe(false)
    coverage.observe(prepareAnswer(Y.encodeStateAsUpdate(doc)))
    expect(coverage.covers(doc)).toBe(true)
  })

  test("starts from the asker's state vector: an answer with only what it lacked covers it", () => {
    const { doc, updates } = typed(1, ['base ', 'more'])
    const coverage = new AnswerCoverage(new Map([[1, 5]]))
    coverage.observe(prepareAnswer(updates[1] as Uint8Array))
    expect(coverage.covers(doc)).toBe(true)
  })

  test('an answer listing a client twice counts for nothing (applying it keeps only the last section)', () => {
    const { doc, updates } = typed(1, ['hello', 'world'])
    const asker = new AnswerCoverage(new Map([[1, 5]]))
    // The second half first, then the first: its ranges join up, but the asker would keep only [0, 5).
    const hostile = repeatedSections(updates[1] as Uint8Array, updates[0] as Uint8Array)
    expect(prepareAnswer(hostile).ranges.size).toBe(0)
    asker.observe(prepareAnswer(hostile))
    expect(asker.covers(doc)).toBe(false)
    const applied = new Y.Doc()
    Y.applyUpdate(applied, hostile)
    expect(Y.encodeStateVector(applied)).toEqual(Y.encodeStateVector(typed(1, ['hello']).doc))
  })

  test('extends from the range holding what the asker has, wherever it lies, and joins touching answers', () => {
    const { doc, updates } = typed(1, ['a', 'b', 'c', 'd', 'e'])
    const asker = new AnswerCoverage(new Map([[1, 3]]))
    // Ranges [0, 1) and [2, 5): the asker's clock 3 lies in the later one.
    asker.observe(prepareAnswer(Y.mergeUpdates([updates[0], updates[2], updates[3], updates[4]] as Uint8Array[])))
    expect(asker.known()).toEqual(new Map([[1, 5]]))
    expect(asker.covers(doc)).toBe(true)
    const fresh = nothing()
    // [0, 1) and [1, 2) in separate answers, then [2, 5): each touches the last.
    for (const u of [updates[0], updates[1], Y.mergeUpdates(updates.slice(2))] as Uint8Array[])
      fresh.observe(prepareAnswer(u))
    expect(fresh.known()).toEqual(new Map([[1, 5]]))
  })

  test('observes no one when askers × the answer’s clients pass the budget', () => {
    const askers = 1000
    const clients = OBSERVE_BUDGET / askers + 1
    const answer = prepareAnswer(
      Y.mergeUpdates(Array.from({ length: clients }, (_, i) => Y.encodeStateAsUpdate(typed(i + 1, ['x']).doc))),
    )
    expect(answer.ranges.size).toBe(clients)
    const many = Array.from({ length: askers }, () => nothing())
    expect(observeAll(many, answer)).toBe(false)
    expect(many.some((c) => c.answered)).toBe(false)
    const fewer = many.slice(1)
    expect(observeAll(fewer.slice(0, askers - 2), answer)).toBe(true)
    expect(fewer[0]?.known().size).toBe(clients)
  })
})
