/**
 * Masking what a detector reported: each finding (a character range and the rule that found it)
 * becomes `[REDACTED:<rule>]`. Pure, so the rules for ranges that overlap, nest, repeat or stop
 * short of a word are tested apart from any detector.
 */
import { marker } from './marker.ts'

/** One reported secret: `text[start, end)`, found by rule `kind`. */
export interface Finding {
  readonly start: number
  readonly end: number
  readonly kind: string
}

const SPACE = /\s/

/**
 * Widens a reported range to whole whitespace-delimited words: some rules report a range that
 * starts at the key or stops short of the value's end, and a half-masked secret is a leaked one.
 */
function widen(text: string, start: number, end: number): { start: number; end: number } {
  let s = Math.max(0, Math.min(start, text.length))
  let e = Math.max(s, Math.min(end, text.length))
  while (s > 0 && !SPACE.test(text.charAt(s - 1))) s--
  while (e < text.length && !SPACE.test(text.charAt(e))) e++
  return { start: s, end: e }
}

/**
 * Replaces every finding, widened to whole words, with its marker. Overlapping findings become one
 * marker (the first to start, the longest of those starting together); a finding inside a range
 * already masked adds nothing; an empty one masks nothing.
 */
export function maskFindings(text: string, findings: readonly Finding[]): string {
  const ranges = findings
    .map((f) => ({ ...widen(text, f.start, f.end), kind: f.kind }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start || b.end - a.end)
  let out = ''
  let at = 0
  for (const r of ranges) {
    if (r.end <= at) continue // nested in a range already masked
    out += text.slice(at, Math.max(at, r.start)) + marker(r.kind)
    at = r.end
  }
  return out + text.slice(at)
}
