import { describe, expect, it } from 'vitest'
import { bodyByteLength } from './body.ts'

const utf8 = (text: string): number => new TextEncoder().encode(text).length

describe('bodyByteLength at every UTF-8 width boundary', () => {
  const cases: [string, string][] = [
    ['U+007F', '\u007f'],
    ['U+0080', '\u0080'],
    ['U+07FF', '\u07ff'],
    ['U+0800', '\u0800'],
    ['U+D7FF', '\ud7ff'],
    ['a pair starting U+D800 U+DC00', '\ud800\udc00'],
    ['a pair ending U+DBFF U+DFFF', '\udbff\udfff'],
    ['a lone high surrogate at the end', 'a\ud800'],
    ['a high surrogate before a non-surrogate', '\udbffx'],
    ['a high surrogate before U+DBFF', '\ud800\udbff'],
    ['a high surrogate before U+E000', '\ud800\ue000'],
    ['a lone low surrogate', '\udc00a'],
    ['U+E000', '\ue000'],
    ['U+FFFF', '\uffff'],
  ]
  it.each(cases)('%s counts as TextEncoder encodes it', (_, text) => {
    expect(bodyByteLength(text)).toBe(utf8(text))
  })
})
