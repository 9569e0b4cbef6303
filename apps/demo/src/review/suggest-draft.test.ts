import { describe, expect, it } from 'vitest'
import { nextDraft } from './suggest-codemirror.ts'

describe("suggest mode's draft", () => {
  it('typing over a selection starts a draft; typing at its end adds to it; Backspace takes back what was typed', () => {
    let d = nextDraft(null, 5, 10, 's')
    expect(d).toEqual({ from: 5, to: 10, typed: 's' })
    d = nextDraft(d, 10, 10, 'andals')
    expect(d).toEqual({ from: 5, to: 10, typed: 'sandals' })
    d = nextDraft(d, 9, 10, '')
    expect(d).toEqual({ from: 5, to: 10, typed: 'sandal' })
  })

  it('deleting next to a deletion-only draft widens it; a change elsewhere starts a new draft', () => {
    let d = nextDraft(null, 5, 6, '')
    d = nextDraft(d, 4, 5, '')
    expect(d).toEqual({ from: 4, to: 6, typed: '' })
    expect(nextDraft(d, 20, 20, 'x')).toEqual({ from: 20, to: 20, typed: 'x' })
  })
})
