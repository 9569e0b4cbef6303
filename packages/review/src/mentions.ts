/**
 * "@Bob" in a comment: the members it names. A mention is `@` then a member's shown name (matched
 * whole, case-insensitively, longest name first so "@Bob Smith" is not "@Bob") or their number.
 * Pure: the members come from the group's listing, the result is their numbers.
 */
import { REVIEW_LIMITS } from './limits.ts'

export interface Mentionable {
  readonly number: string
  readonly name?: string
}

const WORD_END = /^(?:$|[\s.,;:!?)'"\]}])/

/** The numbers of the members `body` mentions, each once, in order of first mention, at most 16. */
export function parseMentions(body: string, members: readonly Mentionable[]): string[] {
  const names = members
    .flatMap((m) => [
      ...(m.name === undefined || m.name.trim() === '' ? [] : [{ key: m.name.trim().toLowerCase(), number: m.number }]),
      { key: m.number.toLowerCase(), number: m.number },
    ])
    .sort((a, b) => b.key.length - a.key.length)
  const out: string[] = []
  const lower = body.toLowerCase()
  for (let i = lower.indexOf('@'); i !== -1 && out.length < REVIEW_LIMITS.maxMentions; i = lower.indexOf('@', i + 1)) {
    if (i > 0 && /[\p{L}\p{N}_]/u.test(lower[i - 1] ?? '')) continue // an address, not a mention
    const rest = lower.slice(i + 1)
    const hit = names.find((n) => rest.startsWith(n.key) && WORD_END.test(rest.slice(n.key.length)))
    if (hit !== undefined && !out.includes(hit.number)) out.push(hit.number)
  }
  return out
}
