/**
 * Suggest mode's quote: a suggestion names the text it replaces by quoting it, and the quote must
 * occur exactly once in the document (`@e2e-col/review`). A person's change at `[from, to)` is
 * widened to whole words, then word by word on both sides, until its quote is unique; the
 * replacement keeps the widened text around the person's own.
 */

/** The most characters a quote is widened to before giving up (the model's bound is far larger). */
export const MAX_QUOTE_CHARS = 2000

const isWord = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_'’-]/u.test(ch)

function count(text: string, find: string): number {
  let n = 0
  for (let i = text.indexOf(find); i !== -1 && n < 2; i = text.indexOf(find, i + 1)) n += 1
  return n
}

/**
 * The range `[from, to)` widened until `text.slice(from, to)` is non-empty and occurs once;
 * undefined when no range of at most {@link MAX_QUOTE_CHARS} does (or the text is empty).
 */
export function uniqueQuote(text: string, from: number, to: number): { from: number; to: number } | undefined {
  let a = from
  let b = to
  while (a > 0 && isWord(text[a - 1]) && (a === b || isWord(text[a]))) a -= 1
  while (b < text.length && isWord(text[b]) && (a === b || isWord(text[b - 1]))) b += 1
  if (a === b) {
    if (a > 0) a -= 1
    else if (b < text.length) b += 1
    else return undefined
  }
  while (b - a <= MAX_QUOTE_CHARS) {
    if (count(text, text.slice(a, b)) === 1) return { from: a, to: b }
    if (a === 0 && b === text.length) return undefined
    // One more word (or one more non-word character) on each side.
    if (a > 0) a -= 1
    while (a > 0 && isWord(text[a - 1])) a -= 1
    if (b < text.length) b += 1
    while (b < text.length && isWord(text[b])) b += 1
  }
  return undefined
}

/** The suggestion for replacing `[from, to)` of `text` with `typed`: a unique quote and its replacement. */
export function suggestionFor(
  text: string,
  from: number,
  to: number,
  typed: string,
): { find: string; replace: string } | undefined {
  const q = uniqueQuote(text, from, to)
  if (q === undefined) return undefined
  const find = text.slice(q.from, q.to)
  const replace = text.slice(q.from, from) + typed + text.slice(to, q.to)
  return find === replace ? undefined : { find, replace }
}
