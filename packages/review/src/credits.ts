/**
 * Credit for accepted suggestions: the letters an acceptance inserted are its suggester's writing,
 * accepted by the decider ("Claude, for Alice, accepted by Bob" in "Who wrote this"). The decision
 * names the insertion's clock range (`applied`); it is believed only where it cannot be borrowed:
 * the range is under the decision's own writer (written in the same transaction), as long as the
 * suggestion's replacement, and every letter still there reads what the suggestion proposed. So a
 * member can credit to a suggester only their own insertion of exactly the suggested text.
 * @see docs/review.md "Who wrote this", docs/decisions/0034-review-structure.md
 */
import type * as Y from 'yjs'
import { wordsRead } from './inserted-words.ts'
import { listSuggestions, type Suggestion } from './suggestions.ts'

/** Letters `[clock, clock + len)` of client `client` are suggestion `suggestion`'s accepted text. */
export interface AcceptedSpan {
  readonly client: number
  readonly clock: number
  readonly len: number
  readonly suggestion: Suggestion & { readonly decidedBy: number }
}

/** The accepted suggestions' inserted ranges that hold (see the module comment), oldest first. */
export function acceptedSpans(doc: Y.Doc): AcceptedSpan[] {
  const out: AcceptedSpan[] = []
  for (const s of listSuggestions(doc)) {
    const applied = s.decision?.applied
    if (s.status !== 'accepted' || applied === undefined || s.decidedBy === undefined) continue
    if (applied.client !== s.decidedBy || applied.len === 0 || applied.len !== s.entry.replace.length) continue
    if (wordsRead(doc, applied.client, applied.clock, s.entry.replace) === undefined) continue
    out.push({
      client: applied.client,
      clock: applied.clock,
      len: applied.len,
      suggestion: { ...s, decidedBy: s.decidedBy },
    })
  }
  return out
}
