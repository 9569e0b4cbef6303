import { describe, expect, it } from 'vitest'
import { addComment, listComments, replyTo, resolveComment } from './comments.ts'
import { ReviewError } from './errors.ts'
import { REVIEW_LIMITS } from './limits.ts'
import { parseMentions } from './mentions.ts'
import type { Target } from './structure.ts'
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
    resolveComment(bob, id, false, 11, counter(6))
    syncDocs(alice, bob)
    expect(listComments(alice)[0]?.resolved).toBe(false)
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
