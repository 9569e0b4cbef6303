/**
 * Suggestions: a proposed replacement of a quoted range, made against a base, decided by an editor.
 * Pure over a `Y.Doc`: the sidecar calls these on its replica (or a page on its document) and the
 * change replicates like any other. Roles are not checked here (the sidecar knows them); staleness,
 * bounds and the shape of every entry are.
 * @see docs/review.md, docs/decisions/0034-review-structure.md
 */
import * as Y from 'yjs'
import { anchorOf, resolveAnchor } from './anchors.ts'
import { decodeBase, unchangedSince } from './base.ts'
import { ReviewError } from './errors.ts'
import { REVIEW_LIMITS } from './limits.ts'
import {
  newEntryId,
  parseDecision,
  parseKey,
  parseSuggestion,
  reviewMap,
  utf8Bytes,
  writerOf,
  type DecisionEntry,
  type SuggestionEntry,
  type Target,
} from './structure.ts'
import { extract, nodeText, occurrences, segmentOf } from './text-target.ts'
import { sameWriter } from './writers.ts'

export interface SuggestionInput {
  readonly target: Target
  readonly base: string
  readonly find: string
  readonly replace: string
  readonly note?: string
  readonly agent?: string
  readonly at: number
  /** Where entry ids come from (a uint32 each); `crypto.getRandomValues` in production. */
  readonly random: () => number
}

export type SuggestionStatus = 'open' | DecisionEntry['status']

export interface Suggestion {
  readonly id: string
  /** The client id whose struct holds the suggestion: its writer (decision 0023). */
  readonly writer: number
  readonly entry: SuggestionEntry
  readonly status: SuggestionStatus
  /** The decision's writer (who accepted or rejected), when decided. */
  readonly decidedBy?: number
  readonly decision?: DecisionEntry
  /** Open and its quoted text is no longer `find`: it cannot be accepted as made. */
  readonly stale: boolean
}

function checkInput(input: SuggestionInput): void {
  const { find, replace, note = '', agent } = input
  if (typeof find !== 'string' || find === '') throw new ReviewError('REVIEW_BAD_INPUT', 'find must be non-empty text')
  if (typeof replace !== 'string') throw new ReviewError('REVIEW_BAD_INPUT', 'replace must be text')
  if (typeof note !== 'string') throw new ReviewError('REVIEW_BAD_INPUT', 'note must be text')
  if (find === replace) throw new ReviewError('REVIEW_BAD_INPUT', 'replace is the same as find')
  if (utf8Bytes(find) > REVIEW_LIMITS.maxQuoteBytes || utf8Bytes(replace) > REVIEW_LIMITS.maxQuoteBytes)
    throw new ReviewError('REVIEW_TOO_LARGE', `find and replace are at most ${REVIEW_LIMITS.maxQuoteBytes} bytes each`)
  if (utf8Bytes(note) > REVIEW_LIMITS.maxNoteBytes)
    throw new ReviewError('REVIEW_TOO_LARGE', `a note is at most ${REVIEW_LIMITS.maxNoteBytes} bytes`)
  if (agent !== undefined && (agent === '' || utf8Bytes(agent) > REVIEW_LIMITS.maxLabelBytes))
    throw new ReviewError('REVIEW_BAD_INPUT', `an agent label is 1 to ${REVIEW_LIMITS.maxLabelBytes} bytes`)
}

/** The text node and index where `find` occurs once and unchanged since `base`. */
function locate(doc: Y.Doc, input: SuggestionInput): { node: Y.Text; index: number } {
  const base = decodeBase(input.base)
  const { text, segments } = extractOrThrow(doc, input.target)
  const found = occurrences(text, input.find, 2)
  const [at] = found
  if (at === undefined) throw new ReviewError('SUGGESTION_STALE', 'find does not occur in the text', 'absent')
  if (found.length > 1) throw new ReviewError('SUGGESTION_STALE', 'find occurs more than once', 'ambiguous')
  const seg = segmentOf(segments, at, input.find.length)
  if (seg === undefined) throw new ReviewError('SUGGESTION_SPANS_BLOCKS', 'find spans two blocks')
  const index = at - seg.from
  if (!unchangedSince(seg.node, index, input.find.length, base))
    throw new ReviewError('SUGGESTION_STALE', 'the quoted text changed since base', 'changed')
  return { node: seg.node, index }
}

export function extractOrThrow(doc: Y.Doc, target: Target): ReturnType<typeof extract> {
  try {
    return extract(doc, target)
  } catch {
    throw new ReviewError('REVIEW_BAD_INPUT', `the document has no ${target.kind} named ${target.name}`)
  }
}

/**
 * Writes a suggestion by `doc.clientID`'s writer and returns its id.
 * @throws ReviewError SUGGESTION_STALE, SUGGESTION_SPANS_BLOCKS, REVIEW_BAD_BASE, REVIEW_BAD_INPUT,
 *   REVIEW_TOO_LARGE, REVIEW_TOO_MANY
 */
export function createSuggestion(doc: Y.Doc, input: SuggestionInput): string {
  checkInput(input)
  const open = listSuggestions(doc).filter((s) => s.status === 'open' && sameWriter(s.writer, doc.clientID))
  if (open.length >= REVIEW_LIMITS.maxOpenSuggestionsPerWriter)
    throw new ReviewError('REVIEW_TOO_MANY', `at most ${REVIEW_LIMITS.maxOpenSuggestionsPerWriter} open suggestions`)
  const { node, index } = locate(doc, input)
  const entry: SuggestionEntry = {
    v: 1,
    target: input.target,
    anchor: anchorOf(node, index, input.find.length),
    find: input.find,
    replace: input.replace,
    note: input.note ?? '',
    ...(input.agent === undefined ? {} : { agent: input.agent }),
    at: input.at,
  }
  const id = newEntryId(input.random)
  reviewMap(doc).set(`s:${id}`, entry)
  return id
}

/** Where a suggestion's (or a comment's) range is now: its text node and range there (undefined when it no longer resolves). */
export function nodeOf(
  doc: Y.Doc,
  entry: Pick<SuggestionEntry, 'target' | 'anchor'>,
): { node: Y.Text; index: number; len: number } | undefined {
  let segments
  try {
    segments = extract(doc, entry.target).segments
  } catch {
    return undefined
  }
  for (const { node } of segments) {
    const range = resolveAnchor(doc, node, entry.anchor)
    if (range !== undefined) return { node, ...range }
  }
  return undefined
}

/** True when the range no longer resolves or no longer reads `find`. */
export function isStale(doc: Y.Doc, entry: SuggestionEntry): boolean {
  const at = nodeOf(doc, entry)
  return at === undefined || nodeText(at.node).plain.slice(at.index, at.index + at.len) !== entry.find
}

/** Every suggestion the document holds (malformed entries skipped), oldest first. */
export function listSuggestions(doc: Y.Doc): Suggestion[] {
  const map = reviewMap(doc)
  const out: Suggestion[] = []
  for (const [key, value] of map.entries()) {
    const k = parseKey(key)
    const entry = k?.kind === 'suggestion' ? parseSuggestion(value) : undefined
    const writer = writerOf(map, key)
    if (k === undefined || entry === undefined || writer === undefined) continue
    const decision = parseDecision(map.get(`d:${k.id}`))
    const decidedBy = writerOf(map, `d:${k.id}`)
    const status = decision?.status ?? 'open'
    out.push({
      id: k.id,
      writer,
      entry,
      status,
      ...(decision === undefined || decidedBy === undefined ? {} : { decision, decidedBy }),
      stale: status === 'open' && isStale(doc, entry),
    })
  }
  return out.sort((a, b) => a.entry.at - b.entry.at || a.id.localeCompare(b.id))
}

function openOne(doc: Y.Doc, id: string): SuggestionEntry {
  const map = reviewMap(doc)
  const entry = parseSuggestion(map.get(`s:${id}`))
  if (entry === undefined) throw new ReviewError('REVIEW_NOT_FOUND', `no suggestion ${id}`)
  if (map.has(`d:${id}`)) throw new ReviewError('SUGGESTION_DECIDED', `suggestion ${id} is already decided`)
  return entry
}

/**
 * Applies suggestion `id` in one transaction with its decision: the range is replaced, and the
 * decision names the clock range the insertion took under `doc.clientID`, which "who wrote this"
 * credits to the suggestion's writer (decision 0034).
 * @throws ReviewError REVIEW_NOT_FOUND, SUGGESTION_DECIDED, SUGGESTION_QUOTE_CHANGED
 */
export function acceptSuggestion(doc: Y.Doc, id: string, at: number): DecisionEntry {
  const entry = openOne(doc, id)
  const place = nodeOf(doc, entry)
  if (place === undefined || nodeText(place.node).plain.slice(place.index, place.index + place.len) !== entry.find)
    throw new ReviewError('SUGGESTION_QUOTE_CHANGED', `suggestion ${id} quotes text that changed since it was made`)
  let decision: DecisionEntry = { v: 1, status: 'accepted', at }
  doc.transact(() => {
    place.node.delete(place.index, place.len)
    const clock = Y.getState(doc.store, doc.clientID)
    if (entry.replace !== '') place.node.insert(place.index, entry.replace)
    const applied = { client: doc.clientID, clock, len: Y.getState(doc.store, doc.clientID) - clock }
    decision = { ...decision, applied }
    reviewMap(doc).set(`d:${id}`, decision)
  })
  return decision
}

/** Records an editor's rejection (or, `withdrawn`, its writer taking it back). */
export function decideWithout(doc: Y.Doc, id: string, status: 'rejected' | 'withdrawn', at: number): DecisionEntry {
  openOne(doc, id)
  const decision: DecisionEntry = { v: 1, status, at }
  reviewMap(doc).set(`d:${id}`, decision)
  return decision
}
