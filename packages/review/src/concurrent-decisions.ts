/**
 * Decisions on one suggestion made at the same moment by two editors. Each writes `d:<id>` in its
 * own transaction; Yjs keeps one decision (the same on every replica) and every acceptance's
 * words, so the text may not say what the kept decision does. Each writer settles its own part
 * (`settlementOf`, acted on by the sidecar, apps/sidecar/src/review/concurrent-decisions.ts):
 * - Its acceptance lost to another acceptance: the words read twice. Its own copy is deleted, when
 *   it is untouched and the kept one is whole and at the same place.
 * - Its acceptance lost to a rejection (or the suggester's withdrawal): the words are in the text
 *   and the decision says rejected. The acceptance stands, because the text already changed: it is
 *   written again, under its own client id and with content every device of the account writes
 *   the same.
 * "Its acceptance": an earlier value of the key `d:<id>` (Yjs links a key's values, the kept one
 * first) written under a client id the caller vouches for as its own (the sidecar: one its author
 * book bound to this account, never one a member relayed), right after that writer's words, as
 * `acceptSuggestion` writes them. "Concurrent": the two values were written over the same earlier
 * value (the same Yjs origin); a decision written over another one is a later decision, and
 * nothing is settled against it.
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

/**
 * This writer's part in settling suggestion `id` (`own`: the client ids the caller wrote): nothing
 * when it made no acceptance concurrent with the kept decision, or there is nothing to settle.
 */
export function settlementOf(
  doc: Y.Doc,
  id: string,
  own: (client: number) => boolean,
  chainLimit = DECISION_CHAIN_LIMIT,
): Settlement {
  const entry = parseSuggestion(valueOf(valuesOf(doc, `s:${id}`, 1)[0]))
  const [kept, ...earlier] = valuesOf(doc, `d:${id}`, chainLimit)
  const decision = parseDecision(valueOf(kept))
  if (entry === undefined || kept === undefined || decision === undefined || entry.replace === '') return {}
  const len = entry.replace.length
  const mine = earlier.find(
    (v) =>
      own(v.id.client) &&
      v.id.clock >= len &&
      sameId(v.origin, kept.origin) &&
      wordsRead(doc, v.id.client, v.id.clock - len, entry.replace) !== undefined,
  )
  if (mine === undefined) return {}
  const range = { client: mine.id.client, clock: mine.id.clock - len, len }
  if (decision.status !== 'accepted')
    return {
      reassert: { client: range.client, decision: { v: 1, status: 'accepted', at: decision.at, applied: range } },
    }
  const other = decision.applied
  // Deleted only when nothing is lost: the kept words whole, its writer's own, at the same place, and ours untouched.
  if (other === undefined || other.client !== kept.id.client || other.len !== len) return {}
  if (wordsRead(doc, other.client, other.clock, entry.replace) !== len) return {}
  if (wordsRead(doc, range.client, range.clock, entry.replace) !== len || !samePlace(doc, range, other)) return {}
  return { remove: range }
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
