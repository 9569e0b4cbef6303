import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { inRanges, insertedRuns, insertedText, rangesOf, textIn } from './stranded-text.ts'

/** `fn`'s change to `doc` as an update. */
function change(doc: Y.Doc, fn: () => void): Uint8Array {
  const before = Y.encodeStateVector(doc)
  fn()
  return Y.encodeStateAsUpdate(doc, before)
}

describe('the text an update inserted', () => {
  it('reads typed text, adjacent inserts of one client joined, and only the clients kept', () => {
    const doc = new Y.Doc()
    doc.clientID = 7
    const text = doc.getText('t')
    const update = change(doc, () => {
      text.insert(0, 'Hello')
      text.insert(5, ' world')
    })
    expect(insertedText(update)).toBe('Hello world')
    expect(insertedRuns(update)).toEqual([{ client: 7, clock: 0, text: 'Hello world' }])
    expect(insertedText(update, (client) => client !== 7)).toBe('')
  })

  it('shows no text for a deletion or formatting, and none for bytes that are not an update', () => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'abc')
    expect(insertedText(change(doc, () => doc.getText('t').delete(0, 2)))).toBe('')
    expect(insertedText(change(doc, () => doc.getText('t').format(0, 1, { bold: true })))).toBe('')
    expect(insertedText(new Uint8Array([1, 2, 3, 250]))).toBe('')
  })
})

describe('the text written at some clocks, in document order', () => {
  it('reads what a person sees they typed, even when the editor closed a bracket before the words', () => {
    const doc = new Y.Doc()
    doc.clientID = 3
    const t = doc.getText('t')
    t.insert(0, 'Day 1.')
    const from = doc.getText('t').length
    // " [" then the editor's "]" then the words inside: clock order is not the order read.
    t.insert(6, ' [')
    t.insert(8, ']')
    t.insert(8, 'bob')
    const update = Y.encodeStateAsUpdate(doc)
    const read = new Y.Doc()
    Y.applyUpdate(read, update)
    expect(textIn(read, (client, clock) => client === 3 && clock >= from)).toEqual([
      { client: 3, clock: 6, text: ' [bob]' },
    ])
    expect(rangesOf(update).at(-1)?.[2]).toBe(12)
    expect(inRanges(rangesOf(update), 3, 11)).toBe(true)
  })
})
