import { describe, expect, it } from 'vitest'
import { suggestionFor, uniqueQuote } from './quote.ts'

describe("suggest mode's quote", () => {
  it('quotes a selected word as it is when it occurs once', () => {
    const text = 'Pack boots and a map.'
    expect(suggestionFor(text, 5, 10, 'sandals')).toEqual({ find: 'boots', replace: 'sandals' })
  })

  it('widens a cursor insertion to the word it touches, keeping the word in the replacement', () => {
    const text = 'Pack boots and a map.'
    // Typing " now" right after "boots".
    expect(suggestionFor(text, 10, 10, ' now')).toEqual({ find: 'boots', replace: 'boots now' })
  })

  it('widens word by word until the quote occurs once', () => {
    const text = 'the map and the boots'
    const q = uniqueQuote(text, 12, 15)
    // "the" occurs twice: widened to "and the boots", the first span that occurs once.
    expect(q).toEqual({ from: 8, to: 21 })
    const quote = text.slice(q?.from, q?.to)
    expect(text.split(quote).length - 1).toBe(1)
    expect(quote).toContain('the')
    expect(suggestionFor(text, 12, 15, 'a')?.replace).toBe(quote.replace('the', 'a'))
  })

  it('gives up past its bound (a long run of the same word), on an empty text, and when nothing changes', () => {
    expect(uniqueQuote('ab ab', 0, 2)).toEqual({ from: 0, to: 5 })
    expect(uniqueQuote('x '.repeat(3000), 2000, 2001)).toBeUndefined()
    expect(uniqueQuote('', 0, 0)).toBeUndefined()
    expect(suggestionFor('one', 0, 3, 'one')).toBeUndefined()
  })
})
