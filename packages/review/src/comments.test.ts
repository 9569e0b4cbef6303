import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { countReviewEntries } from './entry-count.ts'
import { addComment, listComments, replyTo, resolveComment } from './comments.ts'
import { ReviewError } from './errors.ts'
import { REVIEW_LIMITS } from './limits.ts'
import { parseMentions } from './mentions.ts'
import { reviewMap, type Target } from './structure.ts'
import { ALICE_TAG, BOB_TAG, counter, docOf, syncDocs } from './testing-docs.ts'

const TEXT: Target = { name: 'text', kind: 'text' }

function codeOf(f: () => unknown): string | undefined {
  try {
    f()
  } catch (e) {
    if (e instanceof ReviewError) return e.code
    throw e
  }
  return undefined
}

describe('comments', () => {
  it('a thread lists its replies in order and replicates with its writer', () => {
    const alice = docOf(ALICE_TAG)
    const bob = docOf(BOB_TAG)
    alice.getText('text').insert(0, 'Trip plan: day 2 hike')
    syncDocs(alice, bob)
    const random = counter(2)
    const id = addComment(alice, { target: TEXT, index: 11, length: 5, body: 'too long?', at: 1, random })
    syncDocs(alice, bob)
    replyTo(bob, id, { body: 'shorten it', at: 2, random: counter(3) })
    syncDocs(alice, bob)
    const [c] = listComments(alice)
    expect(c).toMatchObject({ id, writer: alice.clientID, current: 'day 2', orphaned: false, resolved: false })
    expect(c?.replies.map((r) => [r.entry.body, r.writer])).toEqual([['shorten it', bob.clientID]])
    expect(listComments(bob)).toHaveLength(1)
  })

  it('resolve and reopen: the latest resolution wins on every replica', () => {
    const alice = docOf(ALICE_TAG)
    const bob = docOf(BOB_TAG)
    alice.getText('text').insert(0, 'abc')
    const id = addComment(alice, { target: TEXT, index: 0, length: 1, body: 'x', at: 1, random: counter() })
    syncDocs(alice, bob)
    resolveComment(alice, id, true, 10, counter(4))
    resolveComment(bob, id, false, 5, counter(5)) // older, concurrent
    syncDocs(alice, bob)
    expect(listComments(alice)[0]?.resolved).toBe(true)
    expect(listComments(bob)[0]?.resolved).toBe(true)
    expect(listComments(bob)[0]?.resolution).toEqual({ by: alice.clientID, at: 10, resolved: true })
    resolveComment(bob, id, false, 11, counter(6))
    syncDocs(alice, bob)
    expect(listComments(alice)[0]?.resolved).toBe(false)
    expect(listComments(alice)[0]?.resolution).toEqual({ by: bob.clientID, at: 11, resolved: false })
  })

  it('a comment survives a concurrent edit inside its range and reads the edited text', () => {
    const alice = docOf(ALICE_TAG)
    const bob = docOf(BOB_TAG)
    alice.getText('text').insert(0, 'one two three')
    syncDocs(alice, bob)
    addComment(alice, { target: TEXT, index: 4, length: 3, body: 'x', at: 1, random: counter() })
    bob.getText('text').insert(5, 'W')
    syncDocs(alice, bob)
    expect(listComments(alice)[0]).toMatchObject({ current: 'tWwo', orphaned: false })
    expect(listComments(alice)[0]?.entry.quote).toBe('two')
  })

  it('bad ranges, empty or oversized bodies and unknown threads get stable codes', () => {
    const alice = docOf(ALICE_TAG)
    alice.getText('text').insert(0, 'abc')
    const base = { target: TEXT, at: 1, random: counter() }
    expect(codeOf(() => addComment(alice, { ...base, index: 2, length: 5, body: 'x' }))).toBe('REVIEW_BAD_INPUT')
    expect(codeOf(() => addComment(alice, { ...base, index: 0, length: 0, body: 'x' }))).toBe('REVIEW_BAD_INPUT')
    expect(codeOf(() => addComment(alice, { ...base, index: 0, length: 1, body: '  ' }))).toBe('REVIEW_BAD_INPUT')
    const big = 'x'.repeat(REVIEW_LIMITS.maxNoteBytes + 1)
    expect(codeOf(() => addComment(alice, { ...base, index: 0, length: 1, body: big }))).toBe('REVIEW_TOO_LARGE')
    expect(codeOf(() => replyTo(alice, 'nosuchthread', { body: 'x', at: 1, random: counter() }))).toBe(
      'REVIEW_NOT_FOUND',
    )
    expect(codeOf(() => resolveComment(alice, 'nosuchthread', true, 1, counter()))).toBe('REVIEW_NOT_FOUND')
    expect(listComments(alice)).toEqual([])
  })
})

describe('mentions', () => {
  const members = [
    { number: '+15550001', name: 'Bob' },
    { number: '+15550002', name: 'Bob Smith' },
    { number: '+15550003', name: 'Alice' },
  ]

  it('names a member once, by the longest shown name that matches whole, or by number', () => {
    expect(parseMentions('@Bob, look. @bob again', members)).toEqual(['+15550001'])
    expect(parseMentions('@Bob Smith and @Alice', members)).toEqual(['+15550002', '+15550003'])
    expect(parseMentions('ask @+15550003!', members)).toEqual(['+15550003'])
  })

  it('an e-mail address, a longer word or an unknown name mentions nobody', () => {
    expect(parseMentions('bob@Bob.com @Bobby @Carol', members)).toEqual([])
  })

  it(`at most ${REVIEW_LIMITS.maxMentions} mentions are taken from one comment`, () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ number: `+1555${String(i).padStart(4, '0')}` }))
    expect(parseMentions(many.map((m) => `@${m.number}`).join(' '), many)).toHaveLength(REVIEW_LIMITS.maxMentions)
  })
})

describe('thread bounds and agents', () => {
  it(`a thread takes ${REVIEW_LIMITS.maxRepliesPerThread} replies; the next is REVIEW_TOO_MANY; a longer one is listed cut`, () => {
    const alice = docOf(ALICE_TAG)
    alice.getText('text').insert(0, 'Trip plan: day 2 hike')
    const random = counter(5)
    const id = addComment(alice, { target: TEXT, index: 0, length: 4, body: 'hm', at: 1, random })
    for (let i = 0; i < REVIEW_LIMITS.maxRepliesPerThread; i++) replyTo(alice, id, { body: `r${i}`, at: 2 + i, random })
    expect(codeOf(() => replyTo(alice, id, { body: 'one more', at: 9999, random }))).toBe('REVIEW_TOO_MANY')
    // A hostile writer past the model: its extra replies are not listed.
    const [thread] = listComments(alice)
    expect(thread?.replies).toHaveLength(REVIEW_LIMITS.maxRepliesPerThread)
    expect(thread?.replies[0]?.entry.body).toBe('r0')
  })

  it("an agent's comment and reply carry its label; a label past the bound is REVIEW_BAD_INPUT", () => {
    const alice = docOf(ALICE_TAG)
    alice.getText('text').insert(0, 'Trip plan: day 2 hike')
    const random = counter(6)
    const id = addComment(alice, { target: TEXT, index: 0, length: 4, body: 'hm', agent: 'Claude', at: 1, random })
    replyTo(alice, id, { body: 'mine', at: 2, random })
    const [thread] = listComments(alice)
    expect(thread?.entry.agent).toBe('Claude')
    expect(thread?.replies[0]?.entry.agent).toBeUndefined()
    const long = 'x'.repeat(REVIEW_LIMITS.maxLabelBytes + 1)
    expect(codeOf(() => replyTo(alice, id, { body: 'b', agent: long, at: 3, random }))).toBe('REVIEW_BAD_INPUT')
  })
})

describe('counting the entries an update writes', () => {
  it('counts new review keys, not text, not a rewrite of a held key; undecodable is undefined', () => {
    const alice = docOf(ALICE_TAG)
    alice.getText('text').insert(0, 'Trip plan: day 2 hike')
    const before = Y.encodeStateVector(alice)
    const random = counter(7)
    const id = addComment(alice, { target: TEXT, index: 0, length: 4, body: 'a', at: 1, random })
    replyTo(alice, id, { body: 'b', at: 2, random })
    resolveComment(alice, id, true, 3, random)
    alice.getText('text').insert(0, 'more ')
    expect(countReviewEntries(Y.encodeStateAsUpdate(alice, before))).toBe(3)
    const mid = Y.encodeStateVector(alice)
    reviewMap(alice).set(`c:${id}`, { v: 1 }) // a rewrite: its item has an origin, no key of its own
    expect(countReviewEntries(Y.encodeStateAsUpdate(alice, mid))).toBe(0)
    expect(countReviewEntries(new Uint8Array([9, 9, 9]))).toBeUndefined()
    // A relay (a sync answer) is charged only with what its sender's own ids wrote.
    expect(countReviewEntries(Y.encodeStateAsUpdate(alice, before), () => false)).toBe(0)
  })
})
