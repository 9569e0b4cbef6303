import { describe, expect, it } from 'vitest'
import { maskFindings } from './mask-findings.ts'

describe('masking reported findings', () => {
  it('replaces the range with the marker of the rule that found it and keeps the text around it', () => {
    expect(maskFindings('key is abcdef here', [{ start: 7, end: 13, kind: 'x' }])).toBe('key is [REDACTED:x] here')
  })

  it('widens a range that starts inside a word back to the start of that word', () => {
    const text = 'push with GH=ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8 now'
    const start = text.indexOf('ghp_')
    expect(maskFindings(text, [{ start, end: start + 40, kind: 'github' }])).toBe('push with [REDACTED:github] now')
  })

  it('widens a range that stops inside a word to the end of that word', () => {
    expect(maskFindings('a secret-value-tail b', [{ start: 2, end: 8, kind: 'x' }])).toBe('a [REDACTED:x] b')
  })

  it('masks words at the very start and the very end of the text', () => {
    expect(maskFindings('abcdef rest', [{ start: 0, end: 3, kind: 'x' }])).toBe('[REDACTED:x] rest')
    expect(maskFindings('rest abcdef', [{ start: 7, end: 9, kind: 'x' }])).toBe('rest [REDACTED:x]')
  })

  it('clamps a range reported past the end of the text', () => {
    expect(maskFindings('see abcdef', [{ start: 6, end: 999, kind: 'x' }])).toBe('see [REDACTED:x]')
  })

  it('masks findings reported in any order, each in its place', () => {
    const text = 'one AAAA two BBBB three'
    const a = { start: 4, end: 8, kind: 'a' }
    const b = { start: 13, end: 17, kind: 'b' }
    const want = 'one [REDACTED:a] two [REDACTED:b] three'
    expect(maskFindings(text, [a, b])).toBe(want)
    expect(maskFindings(text, [b, a])).toBe(want)
  })

  it('gives overlapping findings that start together one marker, the longest', () => {
    const text = 'a AAAA BBBB c'
    const short = { start: 2, end: 4, kind: 'short' }
    const long = { start: 2, end: 11, kind: 'long' }
    expect(maskFindings(text, [short, long])).toBe('a [REDACTED:long] c')
    expect(maskFindings(text, [long, short])).toBe('a [REDACTED:long] c')
  })

  it('gives one marker for the same word found by two rules', () => {
    const text = 'x sk_live_AhzCueQpBenQtYh5Xj8TPQxj y'
    expect(
      maskFindings(text, [
        { start: 2, end: 34, kind: 'stripe' },
        { start: 10, end: 34, kind: 'generic' },
      ]),
    ).toBe('x [REDACTED:stripe] y')
  })

  it('adds nothing for a finding inside a range already masked', () => {
    const text = 'a AAAA BBBB c'
    expect(
      maskFindings(text, [
        { start: 2, end: 11, kind: 'outer' },
        { start: 7, end: 9, kind: 'inner' },
      ]),
    ).toBe('a [REDACTED:outer] c')
  })

  it('masks nothing for an empty finding between two spaces', () => {
    expect(maskFindings('a  b', [{ start: 2, end: 2, kind: 'x' }])).toBe('a  b')
  })

  it('returns the text unchanged when nothing was found', () => {
    expect(maskFindings('plain text', [])).toBe('plain text')
  })
})
