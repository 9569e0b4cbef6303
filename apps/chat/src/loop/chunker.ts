/**
 * Splits a (redacted) reply into Signal-sized bodies: at most `maxBytes` UTF-8 bytes each, cut only
 * between code points, preferring line breaks, then spaces, and never inside a `[REDACTED:…]`
 * marker. When more than one body results, each starts with `(n/m)\n`.
 * Signal clients silently drop inline bodies over 2 KiB; signal-cli turns > 2000 bytes into an
 * attachment. 2000 is therefore the default and the ceiling.
 */
export const MAX_SIGNAL_BODY_BYTES = 2000

const encoder = new TextEncoder()
const MARKER = /\[REDACTED:[^\]\n]{0,64}\]/g

function byteLength(text: string): number {
  return encoder.encode(text).length
}

/** Byte length of each code point, indexed by code point. */
function codePointBytes(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
}

/** Intervals (UTF-16 offsets) a cut may not fall strictly inside. */
function protectedRanges(text: string): Array<[number, number]> {
  return [...text.matchAll(MARKER)].map((m) => [m.index, m.index + m[0].length])
}

/** The UTF-16 offset where the next piece (starting at `start`) should end. */
function cutPoint(text: string, start: number, budget: number, guarded: Array<[number, number]>): number {
  let end = start
  let used = 0
  while (end < text.length) {
    const cp = text.codePointAt(end) as number
    const size = codePointBytes(cp)
    if (used + size > budget) break
    used += size
    end += cp > 0xffff ? 2 : 1
  }
  if (end >= text.length) return text.length
  const window = text.slice(start, end)
  const minimum = Math.floor(window.length / 4)
  const newline = window.lastIndexOf('\n')
  let cut = newline >= minimum && newline > 0 ? start + newline + 1 : -1
  if (cut < 0) {
    const space = window.search(/\s\S*$/)
    cut = space >= minimum && space > 0 ? start + space + 1 : end
  }
  for (const [a, b] of guarded) {
    if (a < cut && cut < b && a > start) cut = a
  }
  return cut
}

function split(text: string, budget: number, firstBudget: number): string[] {
  const guarded = protectedRanges(text)
  const pieces: string[] = []
  let start = 0
  while (start < text.length) {
    const end = cutPoint(text, start, pieces.length === 0 ? firstBudget : budget, guarded)
    pieces.push(text.slice(start, end))
    start = end
  }
  return pieces
}

/** Options of {@link chunkReply}. */
export interface ChunkOptions {
  /**
   * A line put after the first body's `(1/m)` mark when there is more than one body, given the
   * count `m` (e.g. how many follow and how to stop them). Room for it is taken from that body.
   */
  lead?: (total: number) => string
}

/**
 * Chunks `text` into bodies of at most `maxBytes` (default and ceiling {@link MAX_SIGNAL_BODY_BYTES}).
 * Empty text gives no chunks. Concatenating the chunks without their `(n/m)\n` marks (and the
 * first body's lead line) gives `text`.
 */
export function chunkReply(text: string, maxBytes = MAX_SIGNAL_BODY_BYTES, options: ChunkOptions = {}): string[] {
  if (!Number.isInteger(maxBytes) || maxBytes < 32 || maxBytes > MAX_SIGNAL_BODY_BYTES) {
    throw new RangeError(`maxBytes must be an integer in 32..${MAX_SIGNAL_BODY_BYTES}`)
  }
  if (text === '') return []
  if (byteLength(text) <= maxBytes) return [text]
  // The mark `(n/m)\n` costs 4 + digits(n) + digits(m) bytes; grow the reserve until m fits it.
  for (let digits = 1; ; digits++) {
    const widest = 10 ** digits - 1
    const leadBytes = options.lead === undefined ? 0 : byteLength(`${options.lead(widest)}\n`)
    const budget = maxBytes - (4 + 2 * digits)
    if (budget - leadBytes < 16) throw new RangeError('the lead line leaves no room in the first body')
    const pieces = split(text, budget, budget - leadBytes)
    if (String(pieces.length).length <= digits) {
      return pieces.map((piece, i) => {
        const lead = i === 0 && options.lead !== undefined ? `${options.lead(pieces.length)}\n` : ''
        return `(${i + 1}/${pieces.length})\n${lead}${piece}`
      })
    }
  }
}
