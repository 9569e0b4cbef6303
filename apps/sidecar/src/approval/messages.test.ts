import { describe, expect, it } from 'vitest'
import { listText, notEditorText, receiptText } from './messages.ts'

describe('the Note-to-Self texts of the approval from the phone', () => {
  it('lists the suggestions numbered with before, after and note, and says how to reply', () => {
    expect(
      listText({
        agent: 'Claude',
        title: 'Trip plan',
        items: [
          { find: 'long hike', replace: 'walk', note: 'shorter' },
          { find: 'and a picnic', replace: '' },
        ],
      }),
    ).toBe(
      'Claude suggests 2 changes in “Trip plan”:\n1. “long hike” → “walk” (shorter)\n2. delete “and a picnic”\nReply “accept 1”, “reject 2” or “accept all”.',
    )
    expect(listText({ agent: 'Claude', title: undefined, items: [{ find: 'a', replace: 'b' }] })).toBe(
      'Claude suggests 1 change in a document:\n1. “a” → “b”\nReply “accept 1” or “reject 1”.',
    )
  })

  it('cuts quotes to one line of 80 characters and counts the items past the list', () => {
    const text = listText({
      agent: 'Claude',
      title: 'Trip plan',
      items: [{ find: `${'x'.repeat(100)}\n\nmore`, replace: 'y\nz' }],
      more: 3,
    })
    const [, first, more] = text.split('\n')
    expect(first).toBe(`1. “${'x'.repeat(79)}…” → “y z”`)
    expect(more).toBe('(3 more on the page)')
    expect(text.startsWith('Claude suggests 4 changes')).toBe(true)
  })

  it('answers a reply with what was done, then a line per item refused', () => {
    expect(receiptText({ verb: 'accept', title: 'Trip plan', done: 1, of: 1, refusals: [] })).toBe(
      '✅ accepted 1 of 1 in “Trip plan”',
    )
    expect(
      receiptText({
        verb: 'reject',
        title: 'Trip plan',
        done: 0,
        of: 3,
        refusals: [
          { n: 2, why: 'decided', status: 'rejected' },
          { n: 1, why: 'stale' },
          { n: 9, why: 'absent', count: 2 },
        ],
      }),
    ).toBe(
      '❌ rejected 0 of 3 in “Trip plan”\n2 was already rejected\n1 is stale: the text changed\n9 is not in the list (it has 2)',
    )
    expect(notEditorText('Trip plan')).toBe(
      '❌ nothing applied in “Trip plan”: only its editors accept or reject suggestions',
    )
  })
})
