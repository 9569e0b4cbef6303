import { addComment, replyTo, resolveComment, type Target } from '@e2e-col/review'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { AuthorView } from '../page/authors.ts'
import { threadsOf, threadStatus, unknownCommenters } from './threads.ts'

const T: Target = { name: 'text', kind: 'text' }
const ALICE = 101
const BOB = 202

let n = 7
const random = () => (n = (n * 48271) % 2147483647)

function docOf(text: string, client: number): Y.Doc {
  const doc = new Y.Doc({ gc: false })
  doc.clientID = client
  doc.getText('text').insert(0, text)
  return doc
}

/** Bob's copy, the same document written by Bob from here on. */
function bobCopy(doc: Y.Doc): Y.Doc {
  const bob = new Y.Doc({ gc: false })
  bob.clientID = BOB
  Y.applyUpdate(bob, Y.encodeStateAsUpdate(doc))
  return bob
}

const names = (you: number): Map<number, AuthorView> =>
  new Map<number, AuthorView>([
    [ALICE, { verified: true, number: '+1', name: 'Alice', you: you === ALICE }],
    [BOB, { verified: true, number: '+2', name: 'Bob', you: you === BOB }],
  ])

const comment = (doc: Y.Doc, find: string, body: string, agent?: string): string => {
  const index = doc.getText('text').toString().indexOf(find)
  return addComment(doc, { target: T, index, length: find.length, body, at: n, random, ...(agent ? { agent } : {}) })
}

describe('what a page shows of comment threads', () => {
  it("names the writer ('You' on her own page, 'Claude, for Alice' for an agent) and quotes the text it reads now", () => {
    const doc = docOf('Day 1: museum. Day 2: long hike.', ALICE)
    comment(doc, 'long hike', '@Bob is this too long?')
    comment(doc, 'museum', 'closed on Mondays', 'Claude')
    expect(threadsOf(doc, T, names(BOB)).map((t) => [t.by, t.quote, t.body, threadStatus(t)])).toEqual([
      ['Alice', '“long hike”', '@Bob is this too long?', 'open'],
      ['Claude, for Alice', '“museum”', 'closed on Mondays', 'open'],
    ])
    expect(threadsOf(doc, T, names(ALICE)).map((t) => t.by)).toEqual(['You', 'Claude, for you'])
  })

  it('lists replies with who wrote them, and the latest resolve or reopen as its status', () => {
    const doc = docOf('Day 2: long hike.', ALICE)
    const id = comment(doc, 'long hike', 'too long?')
    const bob = bobCopy(doc)
    replyTo(bob, id, { body: 'a little', at: n + 1, random })
    resolveComment(bob, id, true, n + 2, random)
    const [t] = threadsOf(bob, T, names(ALICE))
    expect(t?.replies.map((r) => [r.by, r.body])).toEqual([['Bob', 'a little']])
    expect(t === undefined ? '' : threadStatus(t)).toBe('resolved')
  })

  it('follows an edit inside the range: the quote reads the edited text and the place moves with it', () => {
    const doc = docOf('Day 2: long hike.', ALICE)
    comment(doc, 'long hike', 'too long?')
    doc.getText('text').insert(0, 'Plan. ')
    doc.getText('text').insert('Plan. Day 2: long'.length, ' steep')
    const [t] = threadsOf(doc, T, names(ALICE))
    expect(t?.quote).toBe('“long steep hike”')
    expect(t?.place?.index).toBe('Plan. Day 2: '.length)
    expect(t?.place?.len).toBe('long steep hike'.length)
  })

  it('keeps the original quote of a thread whose text was deleted, marked orphaned, with no place', () => {
    const doc = docOf('Day 2: long hike.', ALICE)
    comment(doc, 'long hike', 'too long?')
    doc.getText('text').delete('Day 2: '.length, 'long hike'.length)
    const [t] = threadsOf(doc, T, names(ALICE))
    expect([t?.orphaned, t?.quote, t?.place]).toEqual([true, 'on deleted text: “long hike”', undefined])
  })

  it('skips threads on another text of the document, and names the writers it does not know yet', () => {
    const doc = docOf('Day 2: long hike.', ALICE)
    comment(doc, 'long hike', 'too long?')
    expect(threadsOf(doc, { name: 'rich', kind: 'xml' }, names(ALICE))).toEqual([])
    expect(unknownCommenters(doc, new Map())).toEqual([ALICE])
    expect(unknownCommenters(doc, names(BOB))).toEqual([])
  })
})
