import { describe, expect, test } from 'vitest'
import { textChanges } from './text-changes.ts'

describe('what a text preview marks', () => {
  test('everything deleted since: the whole version is marked as coming back', () => {
    const c = textChanges('', 'Trip plan: Lisbon')
    expect(c).toEqual({ text: 'Trip plan: Lisbon', back: [{ from: 0, to: 17 }], gone: [] })
  })

  test('a word added since is shown where it stands; a word removed since is marked in the version', () => {
    const c = textChanges('Trip plan: Lisbon, then Nice', 'Trip plan: Lisbon, then Porto')
    const backText = c.back.map((r) => c.text.slice(r.from, r.to)).join('|')
    expect(backText).toContain('Porto')
    expect(c.gone.map((g) => g.text).join('|')).toContain('Nice')
    // Each run sits where it belongs in the version's text.
    for (const g of c.gone) expect(c.text.slice(0, g.at)).toMatch(/then $/)
  })

  test('the same text has nothing marked', () => {
    expect(textChanges('same', 'same')).toEqual({ text: 'same', back: [], gone: [] })
  })
})
