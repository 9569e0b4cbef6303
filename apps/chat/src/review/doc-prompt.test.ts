// Document prompts: which messages are one, what the agent is asked, and how its answer is read
// back (prose and fences ignored, bounded, an empty REPLACE a deletion, no block a typed error).
import { describe, expect, it } from 'vitest'
import { asChatError } from '../errors.ts'
import { buildDocPrompt, DOC_ANSWER_LIMITS, parseDocAnswer, parseDocPrompt } from './doc-prompt.ts'

const block = (find: string, replace: string, note = 'why') => `FIND: ${find}\nREPLACE: ${replace}\nNOTE: ${note}`
const codeOf = (f: () => unknown): string | undefined => {
  try {
    f()
  } catch (err) {
    return asChatError(err)?.code
  }
  return undefined
}

describe('recognising a document prompt', () => {
  it('reads the title and instruction in any quotes and any case of "in"', () => {
    for (const text of [
      "in 'Trip plan': shorten day 2",
      'In "Trip plan": shorten day 2',
      'IN “Trip plan”: shorten day 2',
      '  in ‘Trip plan’ :  shorten day 2  ',
      'in «Trip plan»: shorten day 2',
    ])
      expect(parseDocPrompt(text)).toEqual({ title: 'Trip plan', instruction: 'shorten day 2' })
  })

  it('keeps a multi-line instruction whole', () => {
    expect(parseDocPrompt("in 'Notes': fix typos\nand shorten")).toEqual({
      title: 'Notes',
      instruction: 'fix typos\nand shorten',
    })
  })

  it('is undefined for ordinary prompts and for malformed ones', () => {
    for (const text of [
      'shorten day 2',
      'in Trip plan: shorten day 2',
      "in '': shorten day 2",
      "in 'Trip plan': ",
      "in 'Trip plan' shorten day 2",
      "in '   ': x",
      "please look in 'Trip plan': shorten",
      `in '${'x'.repeat(DOC_ANSWER_LIMITS.maxTitleChars + 1)}': x`,
    ])
      expect(parseDocPrompt(text)).toBeUndefined()
  })
})

describe('the agent’s prompt', () => {
  it('carries the instruction, the whole text and the answer format', () => {
    const prompt = buildDocPrompt({ title: 'Trip plan', instruction: 'shorten day 2' }, 'Day 2: long hike.')
    expect(prompt).toContain('shorten day 2')
    expect(prompt).toContain('<<<DOCUMENT\nDay 2: long hike.\nDOCUMENT>>>')
    for (const field of ['FIND:', 'REPLACE:', 'NOTE:', '---']) expect(prompt).toContain(field)
  })
})

describe('reading the agent’s answer', () => {
  it('reads blocks separated by ---, ignoring prose and code fences around them', () => {
    const raw = [
      'Here are my changes:',
      '```',
      block('long hike', 'walk', 'shorter'),
      '---',
      block('and a picnic', '', 'not needed'),
      '```',
      'Hope this helps!',
    ].join('\n')
    expect(parseDocAnswer(raw)).toEqual({
      changes: [
        { find: 'long hike', replace: 'walk', note: 'shorter' },
        { find: 'and a picnic', replace: '', note: 'not needed' },
      ],
      dropped: 0,
      malformed: 0,
    })
  })

  it('takes an empty REPLACE as a deletion and keeps multi-line fields', () => {
    const raw = 'FIND: line one\nline two\nREPLACE:\nNOTE: gone'
    expect(parseDocAnswer(raw).changes).toEqual([{ find: 'line one\nline two', replace: '', note: 'gone' }])
  })

  it('starts a new block at each FIND: even without ---', () => {
    const raw = `${block('a1', 'b1')}\n${block('a2', 'b2')}`
    expect(parseDocAnswer(raw).changes.map((c) => c.find)).toEqual(['a1', 'a2'])
  })

  it('is bounded like the sidecar’s review structure: 20 changes, 16 KiB a quote, 4 KiB a note', () => {
    expect(DOC_ANSWER_LIMITS).toMatchObject({ maxChanges: 20, maxQuoteBytes: 16 * 1024, maxNoteBytes: 4 * 1024 })
  })

  it(`keeps at most ${DOC_ANSWER_LIMITS.maxChanges} changes and counts the rest`, () => {
    const raw = Array.from({ length: DOC_ANSWER_LIMITS.maxChanges + 3 }, (_, i) => block(`f${i}`, `r${i}`)).join(
      '\n---\n',
    )
    const answer = parseDocAnswer(raw)
    expect(answer.changes).toHaveLength(DOC_ANSWER_LIMITS.maxChanges)
    expect(answer.dropped).toBe(3)
  })

  it('skips blocks without REPLACE, with an empty FIND, with no change, or over a bound', () => {
    const raw = [
      'FIND: no replace here\nNOTE: x',
      block('   ', 'x'),
      block('same', 'same'),
      block('x'.repeat(DOC_ANSWER_LIMITS.maxQuoteBytes + 1), 'y'),
      block('a', 'é'.repeat(DOC_ANSWER_LIMITS.maxQuoteBytes / 2 + 1)),
      block('b', 'c', 'n'.repeat(DOC_ANSWER_LIMITS.maxNoteBytes + 1)),
      block('kept', 'k'),
    ].join('\n---\n')
    expect(parseDocAnswer(raw)).toEqual({
      changes: [{ find: 'kept', replace: 'k', note: 'why' }],
      dropped: 0,
      malformed: 6,
    })
  })

  it('throws CHAT_DOC_ANSWER for an answer with no usable change', () => {
    for (const raw of ['', 'I cannot do that.', 'FIND: only find', block('same', 'same')])
      expect(codeOf(() => parseDocAnswer(raw))).toBe('CHAT_DOC_ANSWER')
  })
})
