/**
 * The review structure: one root `Y.Map` of the document, {@link REVIEW_ROOT}, whose every entry is
 * one JSON value under a key written once (append-only). State changes are new keys, never edits of
 * old ones: a decision is `d:<suggestion>`, a resolution `r:<comment>:<id>`. So a commenter's whole
 * write is "new keys in one map", which every sidecar can check struct by struct
 * (review-only.ts). Who wrote an entry is the client id of its struct (decision 0023), never a
 * field of the JSON: the JSON's `agent` is only the label of the program acting for that writer.
 * @see docs/decisions/0034-review-structure.md, docs/protocol.md §4
 */
import type * as Y from 'yjs'
import { REVIEW_LIMITS } from './limits.ts'

/** The root type's name in the document (its Yjs share key). */
export const REVIEW_ROOT = 'e2e-col.review'

export const ENTRY_KINDS = { suggestion: 's', decision: 'd', comment: 'c', resolution: 'r' } as const
export type EntryKind = keyof typeof ENTRY_KINDS

const ID = /^[0-9a-z]{8,32}$/
/** A key: `s:<id>`, `d:<id>`, `c:<id>`, or `r:<comment id>:<id>`; ids are 8–32 of [0-9a-z]. */
export function parseKey(key: string): { kind: EntryKind; id: string; of?: string } | undefined {
  const parts = key.split(':')
  const [k, a, b] = parts
  if (a === undefined || !ID.test(a)) return undefined
  if (parts.length === 2 && k === 's') return { kind: 'suggestion', id: a }
  if (parts.length === 2 && k === 'd') return { kind: 'decision', id: a }
  if (parts.length === 2 && k === 'c') return { kind: 'comment', id: a }
  if (parts.length === 3 && k === 'r' && b !== undefined && ID.test(b)) return { kind: 'resolution', id: b, of: a }
  return undefined
}

/** Where in the document a suggestion or comment points: a root type and its binding. */
export interface Target {
  /** The root type's name (`text` for the plain page, the fragment's name on the rich page). */
  readonly name: string
  /** `text`: a `Y.Text`; `xml`: a `Y.XmlFragment` (TipTap/ProseMirror, Lexical, BlockNote). */
  readonly kind: 'text' | 'xml'
}

/** A range as two Yjs relative positions (JSON form), so it follows concurrent edits. */
export interface Anchor {
  readonly start: unknown
  readonly end: unknown
}

export interface SuggestionEntry {
  readonly v: 1
  readonly target: Target
  readonly anchor: Anchor
  readonly find: string
  readonly replace: string
  readonly note: string
  /** The program acting for the writer ("Claude"), absent for a person. */
  readonly agent?: string
  readonly at: number
}

export type DecisionStatus = 'accepted' | 'rejected' | 'withdrawn'
export interface DecisionEntry {
  readonly v: 1
  readonly status: DecisionStatus
  readonly at: number
  /** On acceptance: the accepter's client id and the clock range its insertion took (attributed to the suggester). */
  readonly applied?: { readonly client: number; readonly clock: number; readonly len: number }
}

export interface CommentEntry {
  readonly v: 1
  readonly target: Target
  readonly anchor: Anchor
  readonly quote: string
  readonly body: string
  /** The comment this one answers (a reply carries its thread's anchor too). */
  readonly replyTo?: string
  readonly mentions: readonly string[]
  /** The program acting for the writer ("Claude"), absent for a person. */
  readonly agent?: string
  readonly at: number
}

export interface ResolutionEntry {
  readonly v: 1
  readonly resolved: boolean
  readonly at: number
}

export const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
const isStr = (x: unknown, max: number): x is string => typeof x === 'string' && utf8Bytes(x) <= max
const isTime = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0
const isNat = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0

function parseTarget(x: unknown): Target | undefined {
  if (!isObj(x) || !isStr(x['name'], 256) || x['name'] === '' || x['name'] === REVIEW_ROOT) return undefined
  return x['kind'] === 'text' || x['kind'] === 'xml' ? { name: x['name'], kind: x['kind'] } : undefined
}

const parseAnchor = (x: unknown): Anchor | undefined =>
  isObj(x) && isObj(x['start']) && isObj(x['end']) ? { start: x['start'], end: x['end'] } : undefined

/** An entry's JSON, or undefined when it is not one this version reads (skipped, never thrown). */
export function parseSuggestion(x: unknown): SuggestionEntry | undefined {
  if (!isObj(x) || x['v'] !== 1) return undefined
  const target = parseTarget(x['target'])
  const anchor = parseAnchor(x['anchor'])
  const { find, replace, note, agent, at } = x
  if (target === undefined || anchor === undefined || !isTime(at)) return undefined
  if (!isStr(find, REVIEW_LIMITS.maxQuoteBytes) || find === '' || !isStr(replace, REVIEW_LIMITS.maxQuoteBytes))
    return undefined
  if (!isStr(note, REVIEW_LIMITS.maxNoteBytes)) return undefined
  if (agent !== undefined && (!isStr(agent, REVIEW_LIMITS.maxLabelBytes) || agent === '')) return undefined
  return { v: 1, target, anchor, find, replace, note, ...(agent === undefined ? {} : { agent }), at }
}

export function parseDecision(x: unknown): DecisionEntry | undefined {
  if (!isObj(x) || x['v'] !== 1 || !isTime(x['at'])) return undefined
  const status = x['status']
  if (status !== 'accepted' && status !== 'rejected' && status !== 'withdrawn') return undefined
  const a = x['applied']
  if (a === undefined) return { v: 1, status, at: x['at'] }
  if (!isObj(a) || !isNat(a['client']) || !isNat(a['clock']) || !isNat(a['len'])) return undefined
  return { v: 1, status, at: x['at'], applied: { client: a['client'], clock: a['clock'], len: a['len'] } }
}

export function parseComment(x: unknown): CommentEntry | undefined {
  if (!isObj(x) || x['v'] !== 1 || !isTime(x['at'])) return undefined
  const target = parseTarget(x['target'])
  const anchor = parseAnchor(x['anchor'])
  const { quote, body, replyTo, mentions, agent } = x
  if (target === undefined || anchor === undefined) return undefined
  if (agent !== undefined && (!isStr(agent, REVIEW_LIMITS.maxLabelBytes) || agent === '')) return undefined
  if (!isStr(quote, REVIEW_LIMITS.maxQuoteBytes) || !isStr(body, REVIEW_LIMITS.maxNoteBytes) || body === '')
    return undefined
  if (replyTo !== undefined && (typeof replyTo !== 'string' || !ID.test(replyTo))) return undefined
  if (!Array.isArray(mentions) || mentions.length > REVIEW_LIMITS.maxMentions) return undefined
  if (!mentions.every((m) => isStr(m, 64))) return undefined
  return {
    v: 1,
    target,
    anchor,
    quote,
    body,
    ...(replyTo === undefined ? {} : { replyTo }),
    mentions: mentions as string[],
    ...(agent === undefined ? {} : { agent }),
    at: x['at'],
  }
}

export function parseResolution(x: unknown): ResolutionEntry | undefined {
  if (!isObj(x) || x['v'] !== 1 || !isTime(x['at']) || typeof x['resolved'] !== 'boolean') return undefined
  return { v: 1, resolved: x['resolved'], at: x['at'] }
}

/** The review map of `doc` (created empty when absent: a root type costs no struct). */
export const reviewMap = (doc: Y.Doc): Y.Map<unknown> => doc.getMap<unknown>(REVIEW_ROOT)

/** The client id that wrote `key`'s current value, or undefined when the key is absent. */
export function writerOf(map: Y.Map<unknown>, key: string): number | undefined {
  // oxlint-disable-next-line no-underscore-dangle -- Yjs names a key's item (its writer's id) only here
  const item = map._map.get(key)
  return item === undefined || item.deleted ? undefined : item.id.client
}

/** A fresh entry id: 16 of [0-9a-z] from `random` (a uint32 source; crypto in production). */
export function newEntryId(random: () => number): string {
  let s = ''
  while (s.length < 16) s += (random() >>> 0).toString(36)
  return s.slice(0, 16)
}
