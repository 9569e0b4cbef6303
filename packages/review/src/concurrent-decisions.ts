/**
 * Decisions on one suggestion made at the same moment by two editors. Each writes `d:<id>` in its
 * own transaction; Yjs keeps one decision (the same on every replica) and every acceptance's
 * words, so the text may not say what the kept decision does:
 * - Two acceptances: the words read twice. The kept decision names its insertion; an insertion of
 *   the same words at the same place by another acceptance is a duplicate, taken back by its writer
 *   (`duplicateAcceptances`, `removeInserted`).
 * - An acceptance and a rejection (or the suggester's withdrawal), the rejection kept: the words
 *   are in the text and the decision says rejected. The acceptance wins, because the text already
 *   changed: its writer writes it again (`outvotedAcceptance`, `reassertAcceptance`).
 * The writers act in the sidecar (apps/sidecar/src/review/concurrent-decisions.ts).
 * "The same place": the same left and right neighbours (Yjs's origins) as the kept insertion's
 * first letter, which only an insertion made concurrently with the kept one can have: one typed
 * after it at that spot has the kept letters as a neighbour instead. "An acceptance": its writer
 * wrote a decision on the same suggestion right after the words, as `acceptSuggestion` does, which
 * words typed by hand never have.
 * @see docs/decisions/0034-review-structure.md §3
 */
import * as Y from 'yjs'
import { wordsRead } from './inserted-words.ts'
import { parseDecision, parseSuggestion, REVIEW_ROOT, reviewMap, type DecisionEntry } from './structure.ts'

/** A writer's insertion: `len` clock units from `clock` under `client`. */
export interface InsertedRange {
  readonly client: number
  readonly clock: number
  readonly len: number
}

/** How far from the kept insertion the walk looks each way: a bound on one decision's work. */
export const DUPLICATE_WALK_LIMIT = 10_000

const holds = (item: Y.Item, id: Y.ID | null): boolean =>
  id !== null && item.id.client === id.client && id.clock >= item.id.clock && id.clock < item.id.clock + item.length
const sameId = (a: Y.ID | null, b: Y.ID | null): boolean => (a === null ? b === null : b !== null && Y.compareIDs(a, b))

/** The items between the kept first letter's two neighbours (at most the walk limit each way). */
function between(first: Y.Item, limit: number): Y.Item[] {
  const out: Y.Item[] = []
  let left = first.left
  for (let n = 0; left !== null && !holds(left, first.origin) && n < limit; n += 1, left = left.left) out.push(left)
  let right = first.right
  for (let n = 0; right !== null && !holds(right, first.rightOrigin) && n < limit; n += 1) {
    out.push(right)
    right = right.right
  }
  return out
}

/**
 * True when `client`'s struct at `clock` is a decision on suggestion `id`: an acceptance writes
 * its decision right after its words, in the same transaction, so words someone typed by hand at
 * that place (or a decision naming them) never make them a duplicate.
 */
function decidedNext(doc: Y.Doc, client: number, clock: number, id: string): boolean {
  if (Y.getState(doc.store, client) <= clock) return false
  const structs = doc.store.clients.get(client) ?? []
  const s = structs[Y.findIndexSS(structs, clock)]
  return (
    s instanceof Y.Item && s.id.clock === clock && s.parentSub === `d:${id}` && s.parent === doc.share.get(REVIEW_ROOT)
  )
}

/**
 * The insertions of suggestion `id`'s words that its kept decision does not name, made at the same
 * place as the one it does (other editors' concurrent acceptances) and not all deleted yet; none
 * when the kept decision is not an acceptance that inserted its words.
 */
export function duplicateAcceptances(doc: Y.Doc, id: string, walkLimit = DUPLICATE_WALK_LIMIT): InsertedRange[] {
  const map = reviewMap(doc)
  const decision = parseDecision(map.get(`d:${id}`))
  const entry = parseSuggestion(map.get(`s:${id}`))
  const kept = decision?.status === 'accepted' ? decision.applied : undefined
  if (entry === undefined || kept === undefined || kept.len === 0 || kept.len !== entry.replace.length) return []
  if (wordsRead(doc, kept.client, kept.clock, entry.replace) === undefined) return []
  const first = Y.getItem(doc.store, Y.createID(kept.client, kept.clock))
  if (!(first instanceof Y.Item) || first.id.clock !== kept.clock) return []
  const found = new Map<string, InsertedRange>()
  for (const item of between(first, walkLimit)) {
    const { client, clock } = item.id
    if (client === kept.client || !sameId(item.origin, first.origin) || !sameId(item.rightOrigin, first.rightOrigin))
      continue
    if ((wordsRead(doc, client, clock, entry.replace) ?? 0) > 0 && decidedNext(doc, client, clock + kept.len, id))
      found.set(`${client}:${clock}`, { client, clock, len: kept.len })
  }
  return [...found.values()]
}

/**
 * An acceptance of suggestion `id` by one of the `own` client ids that a concurrent rejection or
 * withdrawal outlasted: its words are in the document while the kept decision says otherwise. An
 * acceptance the sidecar writes is under a fresh client id (its words from clock 0, its decision
 * right after), which is what is looked for. Undefined when there is none, or when the replacement
 * is empty (nothing then tells an acceptance from a rejection).
 */
export function outvotedAcceptance(
  doc: Y.Doc,
  id: string,
  own: (client: number) => boolean,
): InsertedRange | undefined {
  const map = reviewMap(doc)
  const decision = parseDecision(map.get(`d:${id}`))
  const entry = parseSuggestion(map.get(`s:${id}`))
  if (entry === undefined || entry.replace === '' || decision === undefined || decision.status === 'accepted')
    return undefined
  const len = entry.replace.length
  for (const client of doc.store.clients.keys())
    if (own(client) && (wordsRead(doc, client, 0, entry.replace) ?? 0) > 0 && decidedNext(doc, client, len, id))
      return { client, clock: 0, len }
  return undefined
}

/**
 * Writes the acceptance of `id` naming `range` again, to be written under `range.client` (its
 * words' writer), so "Who wrote this" still credits the suggester.
 */
export function reassertAcceptance(doc: Y.Doc, id: string, range: InsertedRange, at: number): void {
  const decision: DecisionEntry = { v: 1, status: 'accepted', at, applied: { ...range } }
  reviewMap(doc).set(`d:${id}`, decision)
}

/** The text node holding `item` (a root decoded from an update is typed here first, as a binding would). */
function textOf(doc: Y.Doc, item: Y.Item): Y.Text | undefined {
  const parent = item.parent
  if (parent instanceof Y.Text) return parent
  if (!(parent instanceof Y.AbstractType)) return undefined
  try {
    return doc.getText(Y.findRootTypeKey(parent))
  } catch {
    return undefined
  }
}

/** The index among the visible letters of its text of `client`'s letter `clock` (one still there). */
const indexOf = (doc: Y.Doc, client: number, clock: number): number | undefined =>
  Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON({ item: { client, clock } }), doc)
    ?.index

/** Deletes the letters of `ranges` still in the document (as a page would, in one transaction). */
export function removeInserted(doc: Y.Doc, ranges: readonly InsertedRange[]): void {
  doc.transact(() => {
    for (const r of ranges) {
      const structs = doc.store.clients.get(r.client) ?? []
      for (let clock = r.clock; clock < r.clock + r.len;) {
        const s = structs[Y.findIndexSS(structs, clock)]
        if (s === undefined) break
        const from = clock - s.id.clock
        const n = Math.min(s.length - from, r.clock + r.len - clock)
        const text = s instanceof Y.Item && !s.deleted ? textOf(doc, s) : undefined
        const index = text === undefined ? undefined : indexOf(doc, r.client, clock)
        if (text !== undefined && index !== undefined) text.delete(index, n)
        clock += n
      }
    }
  })
}
