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

const shortLead = (n: number) => `${n - 1} more`

describe('where a body is cut (40-byte bodies: 34 bytes of text after a one-digit mark)', () => {
  it.each([
    [
      'after a line break past the first quarter',
      `${'a'.repeat(20)}\n${'b'.repeat(40)}`,
      ['a'.repeat(20) + '\n', 'b'.repeat(34), 'b'.repeat(6)],
    ],
    [
      'not after a line break in the first quarter',
      `aaaa\n${'b'.repeat(40)}`,
      [`aaaa\n${'b'.repeat(29)}`, 'b'.repeat(11)],
    ],
    // The first quarter of a 34-character window is its first 8 characters: a break at 8 counts.
    [
      'after a line break exactly at the first quarter, though a space follows',
      `${'a'.repeat(8)}\n${'b'.repeat(10)} ${'c'.repeat(40)}`,
      [`${'a'.repeat(8)}\n`, `${'b'.repeat(10)} `, 'c'.repeat(34), 'c'.repeat(6)],
    ],
    [
      'after a space exactly at the first quarter',
      `${'a'.repeat(8)} ${'b'.repeat(40)}`,
      [`${'a'.repeat(8)} `, 'b'.repeat(34), 'b'.repeat(6)],
    ],
    ['not after a line break that opens the body', `\n${'b'.repeat(60)}`, [`\n${'b'.repeat(33)}`, 'b'.repeat(27)]],
    [
      'after the last space',
      'word '.repeat(20),
      ['word '.repeat(6), 'word '.repeat(6), 'word '.repeat(6), 'word '.repeat(2)],
    ],
    ['not after a space in the first quarter', `ab ${'c'.repeat(60)}`, [`ab ${'c'.repeat(31)}`, 'c'.repeat(29)]],
    [
      'before a marker the cut would fall in',
      `${'x'.repeat(30)}[REDACTED:github]${'y'.repeat(30)}`,
      ['x'.repeat(30), `[REDACTED:github]${'y'.repeat(17)}`, 'y'.repeat(13)],
    ],
    [
      'at the last space, a marker past the cut left where it is',
      `${'x'.repeat(30)} ${'y'.repeat(10)}[REDACTED:github]${'z'.repeat(10)}`,
      [`${'x'.repeat(30)} `, `${'y'.repeat(10)}[REDACTED:github]${'z'.repeat(7)}`, 'zzz'],
    ],
    [
      'at a marker that starts at the cut',
      `${'x'.repeat(34)}[REDACTED:github]${'y'.repeat(30)}`,
      ['x'.repeat(34), `[REDACTED:github]${'y'.repeat(17)}`, 'y'.repeat(13)],
    ],
    [
      'right after a marker that ends at the cut',
      `${'x'.repeat(17)}[REDACTED:github]${'y'.repeat(30)}`,
      [`${'x'.repeat(17)}[REDACTED:github]`, 'y'.repeat(30)],
    ],
  ])('%s', (_what, text, pieces) => {
    expect(chunkReply(text, 40)).toEqual(pieces.map((p, i) => `(${i + 1}/${pieces.length})\n${p}`))
  })

  it('nowhere in a last piece that fits, even with a line break in it', () => {
    const text = `${'a'.repeat(40)}${'b'.repeat(10)}\n${'c'.repeat(5)}`
    expect(chunkReply(text, 40)).toEqual([
      `(1/2)\n${'a'.repeat(34)}`,
      `(2/2)\n${'a'.repeat(6)}${'b'.repeat(10)}\nccccc`,
    ])
  })

  it('inside a marker longer than a body, rather than never', () => {
    const text = `[REDACTED:${'k'.repeat(60)}]${'z'.repeat(10)}`
    expect(chunkReply(text, 32).map((c) => c.slice(6))).toEqual([
      `[REDACTED:${'k'.repeat(16)}`,
      'k'.repeat(26),
      `${'k'.repeat(18)}]${'z'.repeat(7)}`,
      'zzz',
    ])
  })

  it('takes the lead line from the first body only', () => {
    expect(chunkReply('w'.repeat(100), 40, { lead: shortLead })).toEqual([
      `(1/4)\n3 more\n${'w'.repeat(27)}`,
      `(2/4)\n${'w'.repeat(34)}`,
      `(3/4)\n${'w'.repeat(34)}`,
      `(4/4)\n${'w'.repeat(5)}`,
    ])
  })

  it('reserves room for the widest count of the digits it tries', () => {
    // 9 pieces fit a one-digit reserve: the lead is measured for "8 more", never "9 more" or "10 more".
    const chunks = chunkReply('w'.repeat(270), 40, { lead: shortLead })
    expect(chunks).toHaveLength(9)
    expect(chunks[0]).toBe(`(1/9)\n8 more\n${'w'.repeat(27)}`)
  })

  it('counts each code point by its UTF-8 size at every boundary', () => {
    for (const [ch, size] of [
      ['\u007f', 1],
      ['\u0080', 2],
      ['\u07ff', 2],
      ['\u0800', 3],
      ['\uffff', 3],
      ['\u{10000}', 4],
    ] as const) {
      const text = ch.repeat(60)
      const chunks = chunkReply(text, 40)
      expect(chunks[0]?.slice(6), `U+${ch.codePointAt(0)?.toString(16)}`).toBe(ch.repeat(Math.floor(34 / size)))
      expect(unmark(chunks)).toBe(text)
    }
  })

  it('refuses bounds that are not integers in 32..2000, and names the range', () => {
    expect(() => chunkReply('x', 31)).toThrow('maxBytes must be an integer in 32..2000')
    expect(() => chunkReply('x', 32.5)).toThrow(RangeError)
    expect(chunkReply('x', 32)).toEqual(['x'])
  })

  it('refuses a lead line that leaves fewer than 16 bytes, and takes one that leaves 16', () => {
    // 40-byte bodies: 34 bytes after the mark; a lead of 17 bytes plus its newline leaves 16.
    expect(chunkReply('w'.repeat(100), 40, { lead: () => 'l'.repeat(17) })[0]).toBe(
      `(1/4)\n${'l'.repeat(17)}\n${'w'.repeat(16)}`,
    )
    expect(() => chunkReply('w'.repeat(100), 40, { lead: () => 'l'.repeat(18) })).toThrow(
      'the lead line leaves no room in the first body',
    )
  })
})
