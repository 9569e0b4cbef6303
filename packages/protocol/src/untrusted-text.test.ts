import { describe, expect, it } from 'vitest'
import { checkText, escapeControls, foldName, MAX_GRAPHEME_UNITS, shownText } from './index.ts'

const TITLE = { maxGraphemes: 32 }
const ESC = '\u001b'
const BEL = '\u0007'
// The names a stranger or a member put on a group (docs/reliability.md §2.4).
const OVERWRITE = `Lunch\r${ESC}[2K${ESC}[8mAccept 0000`
const WINDOW_TITLE = `${ESC}]0;pwned${BEL}Notes`
const REVERSED = 'invoice\u202Efdp.exe'

describe('checkText (titles a person types: refused with the problem named)', () => {
  it('accepts a plain title, trimmed, and counts emoji and accents as one character each', () => {
    expect(checkText('  Trip plan ', TITLE)).toEqual({ ok: true, text: 'Trip plan' })
    const family = '👨🏻‍👩🏻‍👧🏻‍👦🏻'
    expect(checkText(family.repeat(32), TITLE)).toEqual({ ok: true, text: family.repeat(32) })
    expect(checkText('é'.normalize('NFD').repeat(32), TITLE).ok).toBe(true)
    // Zero-width joiners inside a visible name are part of how it is written.
    expect(checkText('می‌خواهم', TITLE).ok).toBe(true)
  })

  it('refuses empty, overlong and stacked-mark titles', () => {
    expect(checkText(' \t ', TITLE)).toEqual({ ok: false, problem: 'empty' })
    expect(checkText('x'.repeat(33), TITLE)).toEqual({ ok: false, problem: 'too-long' })
    expect(checkText('x'.repeat(1_000_000), TITLE)).toEqual({ ok: false, problem: 'too-long' })
    expect(checkText(`a${'\u0301'.repeat(MAX_GRAPHEME_UNITS)}`, TITLE)).toEqual({ ok: false, problem: 'too-long' })
  })

  it.each([
    ['control', 'carriage return and CSI', OVERWRITE],
    ['control', 'OSC window title', WINDOW_TITLE],
    ['control', 'C1 CSI', 'a\u009b2Kb'],
    ['control', 'DEL', 'a\u007fb'],
    ['control', 'line separator', 'a\u2028b'],
    ['control', 'paragraph separator', 'a\u2029b'],
    ['bidi-control', 'right-to-left override', REVERSED],
    ['bidi-control', 'isolate', 'a\u2066b\u2069'],
    ['bidi-control', 'first strong isolate', 'a\u2068b'],
    ['bidi-control', 'Arabic letter mark', 'a\u061Cb'],
    ['bidi-control', 'left-to-right mark', 'a\u200Eb'],
    ['bidi-control', 'right-to-left mark', 'a\u200Fb'],
    ['bidi-control', 'embedding', 'a\u202Ab\u202C'],
    ['invisible-only', 'zero-width space', '\u200B'],
    ['invisible-only', 'zero-width joiner and non-joiner', '\u200D\u200C'],
    ['invisible-only', 'word joiner and BOM', '\u2060\uFEFF'],
    ['invisible-only', 'Hangul filler', '\u3164'],
    ['invisible-only', 'soft hyphen', '\u00AD'],
  ])('refuses %s: %s', (problem, _, title) => {
    expect(checkText(title, TITLE)).toEqual({ ok: false, problem })
  })
})

describe('shownText (names from Signal: replaced, never raw)', () => {
  it('keeps a plain name as it is', () => {
    expect(shownText('Alice Ng', TITLE)).toBe('Alice Ng')
  })

  it('replaces every control, bidi control and line separator with U+FFFD', () => {
    expect(shownText(OVERWRITE, TITLE)).toBe('Lunch\uFFFD\uFFFD[2K\uFFFD[8mAccept 0000')
    expect(shownText(WINDOW_TITLE, TITLE)).toBe('\uFFFD]0;pwned\uFFFDNotes')
    expect(shownText(REVERSED, TITLE)).toBe('invoice\uFFFDfdp.exe')
    expect(shownText('a\u2028b\u009bc', TITLE)).toBe('a\uFFFDb\uFFFDc')
  })

  it('cuts a long name to the bound, the last character an ellipsis', () => {
    const shown = shownText('n'.repeat(1000), TITLE)
    expect(shown).toBe(`${'n'.repeat(31)}…`)
    expect(shownText('n'.repeat(32), TITLE)).toBe('n'.repeat(32))
  })

  it('replaces a stacked grapheme and a lone surrogate', () => {
    expect(shownText(`a${'\u0301'.repeat(200)}b`, TITLE)).toBe('\uFFFDb')
    expect(shownText('a\uD800b', TITLE)).toBe('a\uFFFDb')
    // A grapheme longer than the part looked at: what follows it is cut, and says so.
    expect(shownText(`a${'\u0301'.repeat(5000)}b`, TITLE)).toBe('\uFFFD…')
  })

  it('has no name for a text with nothing visible, or no text', () => {
    expect(shownText('\u200B\u200D ', TITLE)).toBeUndefined()
    expect(shownText('', TITLE)).toBeUndefined()
    expect(shownText(null, TITLE)).toBeUndefined()
    expect(shownText(42, TITLE)).toBeUndefined()
  })

  it('never lets an unsafe code point through, whatever the input', () => {
    const alphabet = [
      'a',
      ' ',
      ESC,
      '\r',
      '\n',
      '\u202E',
      '\u2066',
      '\u2028',
      '\u0085',
      '\u200B',
      '\uD83D',
      '\uDE00',
      '\u0301',
    ]
    let seed = 7
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    for (let run = 0; run < 500; run++) {
      const raw = Array.from({ length: next() % 80 }, () => alphabet[next() % alphabet.length]).join('')
      const shown = shownText(raw, TITLE)
      if (shown === undefined) continue
      expect(shown, JSON.stringify(raw)).not.toMatch(/[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u)
      expect([...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(shown)].length).toBeLessThanOrEqual(
        32,
      )
    }
  })
})

describe('escapeControls (what a terminal program prints)', () => {
  it('writes controls, bidi controls and separators as \\uXXXX and leaves the rest', () => {
    expect(escapeControls(OVERWRITE)).toBe('Lunch\\u000d\\u001b[2K\\u001b[8mAccept 0000')
    expect(escapeControls(WINDOW_TITLE)).toBe('\\u001b]0;pwned\\u0007Notes')
    expect(escapeControls(REVERSED)).toBe('invoice\\u202efdp.exe')
    expect(escapeControls('a\u009bb\u2029é 👍')).toBe('a\\u009bb\\u2029é 👍')
  })
})

describe('foldName', () => {
  it('folds what a reader would not tell apart: compatibility forms, case, runs of spaces', () => {
    expect(foldName('  ＦＲＡＮＫ\u00a0 Smith ')).toBe('frank smith')
    expect(foldName('Frank')).toBe(foldName('frank'))
    // Different letters stay different (lookalike scripts are not folded: see the threat model).
    expect(foldName('Frаnk')).not.toBe(foldName('Frank'))
  })
})
