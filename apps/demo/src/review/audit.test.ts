import {
  acceptSuggestion,
  addComment,
  baseOf,
  createSuggestion,
  decideWithout,
  replyTo,
  resolveComment,
} from '@e2e-col/review'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { AuthorView } from '../page/authors.ts'
import { auditOf, MAX_AUDIT_LINES } from './audit.ts'

const TEXT = { name: 'text', kind: 'text' } as const
const ALICE = 1
const BOB = 2
const AUTHORS = new Map<number, AuthorView>([
  [ALICE, { number: '+1555', name: 'Alice', verified: true }],
  [BOB, { number: '+1556', name: 'Bob', you: true, verified: true }],
])

function docAs(client: number): Y.Doc {
  const doc = new Y.Doc()
  doc.clientID = client
  return doc
}
const sync = (a: Y.Doc, b: Y.Doc): void => {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b))
}
let n = 0
const random = (): number => ++n

describe('the review audit in the History panel', () => {
  it('names who suggested (an agent for its person), who decided, commented, replied and resolved, newest first', () => {
    const alice = docAs(ALICE)
    const bob = docAs(BOB)
    alice.getText('text').insert(0, 'Day 1: museum. Day 2: long hike.')
    const base = baseOf(alice)
    const hike = createSuggestion(alice, {
      target: TEXT,
      base,
      find: 'long hike',
      replace: 'picnic',
      agent: 'Claude',
      at: 10,
      random,
    })
    const museum = createSuggestion(alice, { target: TEXT, base, find: 'museum', replace: 'gallery', at: 11, random })
    const comment = addComment(alice, { target: TEXT, index: 0, length: 5, body: 'too early?', at: 12, random })
    sync(alice, bob)
    acceptSuggestion(bob, hike, 20)
    decideWithout(bob, museum, 'rejected', 21)
    replyTo(bob, comment, { body: 'fine by me', at: 22, random })
    sync(alice, bob)
    resolveComment(alice, comment, true, 23, random)
    sync(alice, bob)

    expect(auditOf(bob, AUTHORS)).toEqual([
      { at: 23, text: 'Alice resolved the comment on “Day 1”' },
      { at: 22, text: 'You replied on “Day 1”: fine by me' },
      { at: 21, text: 'You rejected the suggestion of Alice: replace “museum” with “gallery”' },
      { at: 20, text: 'You accepted the suggestion of Claude, for Alice: replace “long hike” with “picnic”' },
      { at: 12, text: 'Alice commented on “Day 1”: too early?' },
      { at: 11, text: 'Alice suggested: replace “museum” with “gallery”' },
      { at: 10, text: 'Claude, for Alice suggested: replace “long hike” with “picnic”' },
    ])
  })

  it('a withdrawn suggestion says so; long quotes are cut; the list keeps the newest lines only', () => {
    const alice = docAs(ALICE)
    const long = 'x'.repeat(200)
    alice.getText('text').insert(0, `${long} end`)
    const id = createSuggestion(alice, { target: TEXT, base: baseOf(alice), find: long, replace: '', at: 5, random })
    decideWithout(alice, id, 'withdrawn', 6)
    const lines = auditOf(alice, AUTHORS)
    expect(lines[0]?.text).toMatch(/^Alice withdrew the suggestion: delete “x{59}…”$/)
    for (let i = 0; i < MAX_AUDIT_LINES; i++)
      addComment(alice, { target: TEXT, index: 201, length: 3, body: `c${i}`, at: 100 + i, random })
    const many = auditOf(alice, AUTHORS)
    expect(many).toHaveLength(MAX_AUDIT_LINES)
    expect(many[0]?.text).toBe(`Alice commented on “end”: c${MAX_AUDIT_LINES - 1}`)
  })
})
