import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chunkReply, MAX_SIGNAL_BODY_BYTES } from './chunker.ts'

const bytes = (s: string) => new TextEncoder().encode(s).length
const unmark = (chunks: string[]) => chunks.map((c) => c.replace(/^\(\d+\/\d+\)\n/, '')).join('')

describe('reply chunker', () => {
  it('sends a short reply as one unmarked body', () => {
    expect(chunkReply('done.')).toEqual(['done.'])
  })
  it('sends nothing for an empty reply', () => {
    expect(chunkReply('')).toEqual([])
  })
  it('keeps exactly 2000 bytes in one body', () => {
    const text = 'a'.repeat(2000)
    expect(chunkReply(text)).toEqual([text])
  })
  it('marks (n/m) and stays within 2000 UTF-8 bytes per body', () => {
    const text = Array.from({ length: 300 }, (_, i) => `line ${i}: ${'é'.repeat(20)}`).join('\n')
    const chunks = chunkReply(text)
    expect(chunks.length).toBeGreaterThan(1)
    chunks.forEach((c, i) => {
      expect(bytes(c)).toBeLessThanOrEqual(MAX_SIGNAL_BODY_BYTES)
      expect(c.startsWith(`(${i + 1}/${chunks.length})\n`)).toBe(true)
    })
    expect(unmark(chunks)).toBe(text)
  })
  it('prefers to cut after a line break', () => {
    const text = `${'a'.repeat(1500)}\n${'b'.repeat(1500)}`
    const chunks = chunkReply(text)
    expect(unmark([chunks[0] as string])).toBe(`${'a'.repeat(1500)}\n`)
  })
  it('never splits a code point (emoji, CJK)', () => {
    const text = '🎉漢'.repeat(1000)
    const chunks = chunkReply(text)
    for (const c of chunks) expect(c).not.toMatch(/\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
    expect(unmark(chunks)).toBe(text)
  })
  it('never cuts inside a redaction marker', () => {
    const text = `${'x'.repeat(1985)}[REDACTED:github]${'y'.repeat(50)}`
    for (const c of chunkReply(text)) expect(c).not.toMatch(/\[REDACTED:[a-z]*$|^(\(\d+\/\d+\)\n)?[a-z]*\]/)
  })
  it('widens the (n/m) reserve when the count reaches two digits', () => {
    const chunks = chunkReply('z'.repeat(30000))
    expect(chunks.length).toBeGreaterThanOrEqual(10)
    for (const c of chunks) expect(bytes(c)).toBeLessThanOrEqual(2000)
    expect(chunks.at(-1)?.startsWith(`(${chunks.length}/${chunks.length})\n`)).toBe(true)
  })
  it('refuses a bound above what Signal delivers inline', () => {
    expect(() => chunkReply('x', 2001)).toThrow(RangeError)
  })
  it('for any text: bodies fit, marks count up, and the text is preserved', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.integer({ min: 32, max: 2000 }), (text, max) => {
        const chunks = chunkReply(text, max)
        for (const c of chunks) expect(bytes(c)).toBeLessThanOrEqual(max)
        expect(chunks.length > 1 ? unmark(chunks) : chunks.join('')).toBe(text)
      }),
      { numRuns: 200 },
    )
  })
})

const lead = (m: number) => `${m - 1} more part(s) follow; send cancel to stop them`

describe('the lead line of a reply in several bodies', () => {
  it('says in the first body how many follow, and every body still fits', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n')
    const chunks = chunkReply(text, MAX_SIGNAL_BODY_BYTES, { lead })
    expect(chunks.length).toBeGreaterThan(5)
    expect(
      chunks[0]?.startsWith(
        `(1/${chunks.length})\n${chunks.length - 1} more part(s) follow; send cancel to stop them\n`,
      ),
    ).toBe(true)
    for (const c of chunks) expect(bytes(c)).toBeLessThanOrEqual(MAX_SIGNAL_BODY_BYTES)
    const unled = [
      chunks[0]?.replace(/^\(1\/\d+\)\n[^\n]*\n/, '') ?? '',
      ...chunks.slice(1).map((c) => c.replace(/^\(\d+\/\d+\)\n/, '')),
    ]
    expect(unled.join('')).toBe(text)
  })
  it('adds nothing to a reply that fits one body', () => {
    expect(chunkReply('short', MAX_SIGNAL_BODY_BYTES, { lead })).toEqual(['short'])
  })
})
