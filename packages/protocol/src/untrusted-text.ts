/**
 * Short texts people see (group names, contact names, document titles) that came from someone
 * else: Signal, or a person typing. One checker, three policies:
 * - {@link checkText}: refuse. A title typed by the person is refused with the problem named, so
 *   the sidecar answers a typed code (DOCS_TITLE_*) and nothing odd is ever sent to Signal.
 * - {@link shownText}: replace. A name from Signal is never refused (the group exists anyway):
 *   every control, bidi control or line separator becomes U+FFFD, an overlong name is cut with
 *   `…`, and a name with nothing visible is no name at all (`undefined`, the caller's fallback).
 * - {@link escapeControls}: escape. A terminal program writes every such code point as `\uXXXX`,
 *   so a text can neither move the cursor, erase a line, set the window title nor reverse a line.
 * Lengths count graphemes (what people see as one character, Intl.Segmenter), and each grapheme is
 * bounded too: a stack of a thousand combining marks is one grapheme.
 * @see docs/reliability.md §2.4
 */

/** What {@link checkText} refuses. */
export type TextProblem = 'empty' | 'too-long' | 'control' | 'bidi-control' | 'invisible-only'

/** UTF-16 code units one grapheme may hold (the longest emoji sequences need about 20). */
export const MAX_GRAPHEME_UNITS = 32

export interface TextBounds {
  /** Most graphemes the text may have. */
  maxGraphemes: number
}

// C0, DEL and C1 controls; U+2028/U+2029 break lines in many renderers.
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/u
// U+061C, U+200E/F, U+202A–202E, U+2066–2069: they reorder what follows them on the line.
const BIDI = /\p{Bidi_Control}/u
const UNSAFE =
  /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu
// Zero-width characters, joiners, fillers, variation selectors and spaces: nothing to see.
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}]*$/u
const REPLACEMENT = '\uFFFD'

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** The graphemes of `text`, or undefined as soon as there are more than `max` or one is overlong. */
function graphemes(text: string, max: number): string[] | undefined {
  const out: string[] = []
  for (const { segment } of segmenter.segment(text)) {
    if (out.length === max || segment.length > MAX_GRAPHEME_UNITS) return undefined
    out.push(segment)
  }
  return out
}

/**
 * A text as a person typed it, trimmed, or its first problem: empty, controls, bidi controls,
 * too long (graphemes, or one grapheme over {@link MAX_GRAPHEME_UNITS}), nothing visible.
 */
export function checkText(
  raw: string,
  bounds: TextBounds,
): { ok: true; text: string } | { ok: false; problem: TextProblem } {
  const text = raw.trim()
  if (text === '') return { ok: false, problem: 'empty' }
  // A huge text is refused before it is scanned.
  if (text.length > bounds.maxGraphemes * MAX_GRAPHEME_UNITS) return { ok: false, problem: 'too-long' }
  if (CONTROL.test(text)) return { ok: false, problem: 'control' }
  if (BIDI.test(text)) return { ok: false, problem: 'bidi-control' }
  if (graphemes(text, bounds.maxGraphemes) === undefined) return { ok: false, problem: 'too-long' }
  if (INVISIBLE_ONLY.test(text)) return { ok: false, problem: 'invisible-only' }
  return { ok: true, text }
}

/**
 * A text from someone else made safe to show: controls, bidi controls, line separators and lone
 * surrogates replaced by U+FFFD, overlong graphemes by U+FFFD, more than `maxGraphemes` cut to
 * `maxGraphemes - 1` and `…`. Undefined for a non-string or a text with nothing visible.
 */
export function shownText(raw: unknown, bounds: TextBounds): string | undefined {
  if (typeof raw !== 'string') return undefined
  // Only what can be shown is looked at (one grapheme past the bound says "cut").
  const head = raw.slice(0, (bounds.maxGraphemes + 1) * MAX_GRAPHEME_UNITS)
  const text = head.replace(UNSAFE, REPLACEMENT).trim()
  if (INVISIBLE_ONLY.test(text)) return undefined
  const out: string[] = []
  let cut = head.length < raw.length
  for (const { segment } of segmenter.segment(text)) {
    if (out.length === bounds.maxGraphemes) {
      cut = true
      break
    }
    out.push(segment.length > MAX_GRAPHEME_UNITS ? REPLACEMENT : segment)
  }
  // A cut name ends in `…`, within the bound (stacked marks can end the head before the bound).
  if (cut) out.splice(Math.min(out.length, bounds.maxGraphemes - 1), 1, '…')
  return out.join('')
}

/** `text` with every control, bidi control, line separator and lone surrogate written as `\uXXXX`. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`)
}

/**
 * A name folded the way a reader would not tell apart (Unicode compatibility forms, case, runs
 * of spaces): two people whose names fold alike are named alike, and the one rule that tells them
 * apart (the sidecar's told-apart.ts) and the page's share box both compare names this way.
 */
export function foldName(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()
}
