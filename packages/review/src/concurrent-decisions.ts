/**
 * Decisions on one suggestion made at the same moment by two editors. Each writes `d:<id>` in its
 * own transaction; Yjs keeps one decision (the same on every replica) and every acceptance's
 * words, so the text may not say what the kept decision does. Each sidecar settles its own
 * acceptances only (`settlementOf`, given the acceptance it recorded when it made it; acted on by
 * apps/sidecar/src/review/concurrent-decisions.ts):
 * - Lost to another acceptance: the words read twice. Its own copy is deleted when it is untouched
 *   (no letter of it deleted, none typed inside) and the kept one is whole, its decision's writer's
 *   own, at the same place.
 * - Lost to a rejection (or the suggester's withdrawal): the words are in the text and the decision
 *   says rejected. The acceptance stands, because the text already changed: it is written again,
 *   once, under its own client id.
 * "Concurrent": one of its values of the key `d:<id>` (Yjs links a key's values, the kept one
 * first) was written over the same earlier value as the kept one; a decision written over it is a
 * later decision, and nothing is settled against it.
 * @see docs/decisions/0034-review-structure.md §3
 */
import * as Y from 'yjs'
import { wordsRead } from './inserted-words.ts'
import { parseDecision, parseSuggestion, REVIEW_ROOT, type DecisionEntry } from './structure.ts'

/** A writer's insertion: `len` clock units from `clock` under `client`. */
export interface InsertedRange {
  readonly client: number
  readonly clock: number
  readonly len: number
}

/** What one writer does for one suggestion: delete its duplicate words, or write its acceptance again. */
export interface Settlement {
  readonly remove?: InsertedRange
  readonly reassert?: { readonly client: number; readonly decision: DecisionEntry }
}

/** Values of one key looked at, the kept one first: a bound on one decision's work. */
export const DECISION_CHAIN_LIMIT = 64

const sameId = (a: Y.ID | null, b: Y.ID | null): boolean => (a === null ? b === null : b !== null && Y.compareIDs(a, b))

/** The values written under `key` of the review root, the kept one first (at most the limit). */
function valuesOf(doc: Y.Doc, key: string, limit: number): Y.Item[] {
  const root = doc.share.get(REVIEW_ROOT)
  // oxlint-disable-next-line no-underscore-dangle -- a key's values (writers, origins, the overwritten too) are linked only from here
  let item: Y.Item | null = root?._map.get(key) ?? null
  const out: Y.Item[] = []
  for (; item !== null && out.length < limit; item = item.left) if (item.parentSub === key) out.push(item)
  return out
}

/** A key's kept value as written (read from its item: the root may not be typed yet), undefined when deleted. */
const valueOf = (item: Y.Item | undefined): unknown =>
  item === undefined || item.deleted ? undefined : item.content.getContent().at(-1)

/** The first struct of `client`'s range from `clock`, when one starts there. */
function firstItem(doc: Y.Doc, client: number, clock: number): Y.Item | undefined {
  if (Y.getState(doc.store, client) <= clock) return undefined
  const item = Y.getItem(doc.store, Y.createID(client, clock))
  return item instanceof Y.Item && item.id.clock === clock ? item : undefined
}

/** Whether two insertions sit at the same place: the same neighbour on one side at least. */
function samePlace(doc: Y.Doc, a: InsertedRange, b: InsertedRange): boolean {
  const x = firstItem(doc, a.client, a.clock)
  const y = firstItem(doc, b.client, b.clock)
  if (x === undefined || y === undefined || x.parent !== y.parent) return false
  return sameId(x.origin, y.origin) || sameId(x.rightOrigin, y.rightOrigin)
}

/** True when `r`'s letters are all there, side by side: none deleted, nothing anyone typed between them. */
function untouched(doc: Y.Doc, r: InsertedRange): boolean {
  let left = r.len
  for (let s = firstItem(doc, r.client, r.clock) ?? null; s !== null && left > 0; s = s.right) {
    if (s.id.client !== r.client) {
      if (!s.deleted && s.countable) return false
      continue
    }
    if (s.deleted) return false
    left -= s.length
  }
  return left === 0
}

/**
 * What this sidecar does for suggestion `id`, given `mine`: the insertion its own acceptance made
 * (as it recorded it). Nothing when that acceptance is the kept decision, was not concurrent with
 * it, was already written again once, or is further back than `chainLimit` values.
 */
export function settlementOf(
  doc: Y.Doc,
  id: string,
  mine: InsertedRange,
  chainLimit = DECISION_CHAIN_LIMIT,
): Settlement {
  const entry = parseSuggestion(valueOf(valuesOf(doc, `s:${id}`, 1)[0]))
  const [kept, ...earlier] = valuesOf(doc, `d:${id}`, chainLimit)
  const decision = parseDecision(valueOf(kept))
  if (entry === undefined || kept === undefined || decision === undefined || entry.replace === '') return {}
  if (mine.len !== entry.replace.length || kept.id.client === mine.client) return {}
  const ours = earlier.filter((v) => v.id.client === mine.client)
  // Some other decision was written over the same value as ours: the kept one, or (three at once)
  // one the kept value was later written over.
  const met = [kept, ...earlier].some(
    (v) => v.id.client !== mine.client && ours.some((o) => sameId(o.origin, v.origin)),
  )
  if (!met) return {}
  const live = wordsRead(doc, mine.client, mine.clock, entry.replace)
  if (decision.status !== 'accepted') {
    if (!ours.some((v) => sameId(v.origin, kept.origin))) return {}
    // Written again at most once: a second rejection made to look concurrent gets no answer.
    const again = ours.some((v) => v.id.clock !== mine.clock + mine.len)
    if (again || live === undefined || live === 0) return {}
    const applied = { client: mine.client, clock: mine.clock, len: mine.len }
    return { reassert: { client: mine.client, decision: { v: 1, status: 'accepted', at: decision.at, applied } } }
  }
  const other = decision.applied
  if (other === undefined || other.client !== kept.id.client || other.len !== mine.len) return {}
  if (wordsRead(doc, other.client, other.clock, entry.replace) !== other.len) return {}
  if (live !== mine.len || !untouched(doc, mine) || !samePlace(doc, mine, other)) return {}
  return { remove: mine }
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

const within = (item: Y.Item, r: InsertedRange): boolean =>
  item.id.client === r.client && item.id.clock < r.clock + r.len && item.id.clock + item.length > r.clock

/** Deletes the letters of `ranges` still in the document, in one transaction and one walk per text node. */
export function removeInserted(doc: Y.Doc, ranges: readonly InsertedRange[]): void {
  const texts = new Set<Y.Text>()
  for (const r of ranges) {
    const first = firstItem(doc, r.client, r.clock)
    const text = first === undefined ? undefined : textOf(doc, first)
    if (text !== undefined) texts.add(text)
  }
  doc.transact(() => {
    for (const text of texts) {
      const cuts: [number, number][] = []
      let index = 0
      // oxlint-disable-next-line no-underscore-dangle -- the letters with their ids, walked once
      for (let s = text._start; s !== null; s = s.right) {
        if (s.deleted || !s.countable) continue
        const r = ranges.find((x) => within(s, x))
        if (r !== undefined) {
          const from = Math.max(r.clock - s.id.clock, 0)
          cuts.push([index + from, Math.min(s.length, r.clock + r.len - s.id.clock) - from])
        }
        index += s.length
      }
      // From the end, so each cut's index still holds.
      for (let i = cuts.length - 1; i >= 0; i -= 1) text.delete(...(cuts[i] as [number, number]))
    }
  })
}
