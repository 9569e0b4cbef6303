/**
 * A document prompt ("in 'Trip plan': shorten day 2"): recognising one, the prompt the agent gets
 * for it, and reading the agent's answer back as changes to suggest. Pure: no I/O. Everything here
 * comes from Signal or from the agent, so it is untrusted text, bounded before it goes anywhere.
 */
import { ChatError } from '../errors.ts'

/** What an operator asked of one document. */
export interface DocPrompt {
  title: string
  instruction: string
}

/** One change the agent proposes: replace `find` (occurring once in the text) with `replace`. */
export interface DocChange {
  find: string
  replace: string
  note: string
}

/** The bounds of an answer, those of the sidecar's review structure (packages/review/src/limits.ts). */
export const DOC_ANSWER_LIMITS = {
  /** Changes taken from one answer; the rest are dropped and reported. */
  maxChanges: 20,
  /** UTF-8 bytes of a `find`, and of a `replace` (REVIEW_LIMITS.maxQuoteBytes). */
  maxQuoteBytes: 16 * 1024,
  /** UTF-8 bytes of a note (REVIEW_LIMITS.maxNoteBytes). */
  maxNoteBytes: 4 * 1024,
  /** Characters of a title in a prompt: a document's title is at most a Signal group name. */
  maxTitleChars: 200,
} as const

// Any of the usual opening quotes, and the closing quotes that may end a title.
const PROMPT = /^\s*in\s+['"‘’“”«‹„‚]([^'"‘’“”«»‹›„‚\n]{1,200})['"‘’“”»›]\s*:\s*([\s\S]+)$/i

/** `in 'Title': instruction` (any quotes, any case of "in"), or undefined for any other prompt. */
export function parseDocPrompt(text: string): DocPrompt | undefined {
  const m = PROMPT.exec(text)
  const title = m?.[1]?.trim()
  const instruction = m?.[2]?.trim()
  if (title === undefined || title === '' || instruction === undefined || instruction === '') return undefined
  return { title, instruction }
}

/** The agent's prompt: the instruction, the document's text, and the one answer format read back. */
export function buildDocPrompt(p: DocPrompt, text: string): string {
  return [
    `Suggest changes to the document “${p.title}” that carry out this instruction:`,
    p.instruction,
    '',
    'The document’s current text, between the lines <<<DOCUMENT and DOCUMENT>>>:',
    '<<<DOCUMENT',
    text,
    'DOCUMENT>>>',
    '',
    'Answer ONLY with change blocks in exactly this format, blocks separated by a line ---, nothing else:',
    'FIND: <exact text copied from the document, occurring exactly once in it>',
    'REPLACE: <the new text; leave it empty to delete>',
    'NOTE: <one short reason>',
    '',
    `Rules: at most ${DOC_ANSWER_LIMITS.maxChanges} blocks; FIND is copied character for character and is ` +
      'long enough to occur once; keep each FIND short (a phrase or a sentence, not the whole document); ' +
      'FIND and REPLACE may span lines: everything up to the next REPLACE: or NOTE: line belongs to them; ' +
      'do not edit files or run tools.',
  ].join('\n')
}

/** What the parser read: the changes, and how many it dropped and why. */
export interface DocAnswer {
  changes: DocChange[]
  /** Blocks past {@link DOC_ANSWER_LIMITS.maxChanges}. */
  dropped: number
  /** Blocks without FIND, or with a field over its bound. */
  malformed: number
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8')
const FIELD = /^(FIND|REPLACE|NOTE):[ \t]?(.*)$/
const FENCE = /^\s*(```|~~~)/

/** Splits one block's lines into its fields; a line without a field name continues the one before. */
function fieldsOf(lines: readonly string[]): Partial<Record<'FIND' | 'REPLACE' | 'NOTE', string>> {
  const out: Partial<Record<'FIND' | 'REPLACE' | 'NOTE', string>> = {}
  let current: 'FIND' | 'REPLACE' | 'NOTE' | undefined
  for (const line of lines) {
    const m = FIELD.exec(line)
    if (m !== null) {
      current = m[1] as 'FIND' | 'REPLACE' | 'NOTE'
      // The first occurrence of a field wins: a repeated one is prose, not a second value.
      if (out[current] === undefined) out[current] = m[2] ?? ''
      else current = undefined
      // A note is one line: what follows it is the answer's prose.
      if (current === 'NOTE') current = undefined
      continue
    }
    if (current !== undefined) out[current] = `${out[current] ?? ''}\n${line}`
  }
  return out
}

/** The block as a change, or undefined when it has no usable FIND or a field is over its bound. */
function changeOf(lines: readonly string[]): DocChange | undefined {
  const f = fieldsOf(lines)
  // Trailing blank lines belong to the layout of the answer, not to the text.
  const find = f.FIND?.replace(/\s+$/, '')
  const replace = (f.REPLACE ?? '').replace(/\s+$/, '')
  const note = (f.NOTE ?? '').trim()
  if (find === undefined || find.trim() === '' || f.REPLACE === undefined) return undefined
  if (bytes(find) > DOC_ANSWER_LIMITS.maxQuoteBytes || bytes(replace) > DOC_ANSWER_LIMITS.maxQuoteBytes)
    return undefined
  if (bytes(note) > DOC_ANSWER_LIMITS.maxNoteBytes) return undefined
  if (find === replace) return undefined
  return { find, replace, note }
}

/** Splits the answer into blocks: each starts at a FIND: line and ends at `---`, a code fence or the next FIND:. */
function blocksOf(raw: string): string[][] {
  const blocks: string[][] = []
  let block: string[] | undefined
  for (const line of raw.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*---+\s*$/.test(line) || FENCE.test(line)) {
      block = undefined
      continue
    }
    if (line.startsWith('FIND:')) {
      block = []
      blocks.push(block)
    }
    block?.push(line)
  }
  return blocks
}

/**
 * Reads the agent's raw answer: prose and code fences around the blocks are ignored, at most
 * {@link DOC_ANSWER_LIMITS.maxChanges} changes are kept. Throws `CHAT_DOC_ANSWER` when no block
 * is a usable change.
 */
export function parseDocAnswer(raw: string): DocAnswer {
  const blocks = blocksOf(raw)
  const changes: DocChange[] = []
  let malformed = 0
  for (const lines of blocks) {
    const change = changeOf(lines)
    if (change === undefined) malformed++
    else changes.push(change)
  }
  if (changes.length === 0)
    throw new ChatError(
      'CHAT_DOC_ANSWER',
      blocks.length === 0
        ? 'the agent answered without any FIND/REPLACE block'
        : `none of the agent's ${blocks.length} blocks was a usable change`,
    )
  const kept = changes.slice(0, DOC_ANSWER_LIMITS.maxChanges)
  return { changes: kept, dropped: changes.length - kept.length, malformed }
}
