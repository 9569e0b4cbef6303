/**
 * The commenter's check: a commenter may write review entries and nothing else. Every sidecar runs
 * it on a commenter's `update` (after the role is read and the author gate has stripped structs
 * under other accounts' ids, decision 0023), given its own replica. Pure: the replica is read,
 * never written.
 *
 * What a commenter may send, struct by struct:
 * - an `Item` whose parent is written out as the root {@link REVIEW_ROOT} (no origin, no right
 *   origin: a fresh map key has neither, so no parent is ever implied by an origin that could lie
 *   in content), under a well-formed key the replica and the rest of the message do not hold yet;
 * - whose content is one JSON value (`ContentAny`) of at most `maxEntryBytes`, parsing as the
 *   entry its key names; a decision only `withdrawn`, of a suggestion written by the same account;
 * - `Skip` structs (gaps of a diff). A `GC`, a nested type, text, an embed, a format: violations.
 *
 * Its delete set is cut whole (append-only entries: a commenter deletes nothing). It is not a
 * violation: an honest page's update carries its document's whole delete set, including editors'
 * deletions this replica may not have yet; those come again from their writers. Deletions that
 * would have removed something live here are counted (`cut.live`), walking at most
 * `maxStructsWalked` replica structs per message.
 *
 * Work per message: O(structs + delete ranges + min(walked, maxStructsWalked)), each struct a
 * constant number of map look-ups and one JSON encoding of its content.
 * @see docs/decisions/0034-review-structure.md
 */
import * as Y from 'yjs'
import { REVIEW_LIMITS } from './limits.ts'
import {
  REVIEW_ROOT,
  parseComment,
  parseDecision,
  parseKey,
  parseResolution,
  parseSuggestion,
  utf8Bytes,
} from './structure.ts'
import { sameWriter } from './writers.ts'

export const REVIEW_VIOLATIONS = [
  /** Not a Yjs v1 update, or its delete set is not written as Yjs writes one. */
  'REVIEW_UNDECODABLE',
  /** A GC struct: its parent cannot be told. */
  'REVIEW_GC',
  /** A struct with an origin or right origin: its parent would be implied, not written. */
  'REVIEW_ORIGIN',
  /** A struct whose parent is not the review root (content, or a type nested anywhere). */
  'REVIEW_PARENT',
  /** A map key this version does not write (or none: a list insert into the root). */
  'REVIEW_KEY',
  /** A key the replica or the message already holds: entries are written once. */
  'REVIEW_OVERWRITE',
  /** Content other than one JSON value, over its bound, or not the entry its key names. */
  'REVIEW_CONTENT',
  /** A decision a commenter may not make (only withdrawing its own suggestion). */
  'REVIEW_DECISION',
  /** More entries in one message than `maxEntriesPerUpdate`. */
  'REVIEW_TOO_MANY_ENTRIES',
] as const
export type ReviewViolationCode = (typeof REVIEW_VIOLATIONS)[number]

export interface ReviewViolation {
  readonly code: ReviewViolationCode
  /** The offending struct, when there is one. */
  readonly at?: { readonly client: number; readonly clock: number }
  readonly message: string
}

export type ReviewOnly =
  | {
      readonly ok: true
      /** What to apply: `update` itself when it had no deletions, else it without its delete set. */
      readonly update: Uint8Array
      readonly entries: number
      /** Delete ranges cut, and how many replica structs they would have deleted that are live. */
      readonly cut: { readonly ranges: number; readonly live: number }
    }
  | { readonly ok: false; readonly violation: ReviewViolation }

type Ranges = ReadonlyMap<number, readonly { clock: number; len: number }[]>

function writeVarUint(out: number[], n: number): void {
  let rest = n
  while (rest > 0x7f) {
    out.push(0x80 | (rest % 128))
    rest = Math.floor(rest / 128)
  }
  out.push(rest)
}

/** The v1 encoding of a delete set, as Yjs writes it (clients in its order). */
function encodeDeleteSet(clients: Ranges): Uint8Array {
  const out: number[] = []
  writeVarUint(out, clients.size)
  for (const [client, items] of clients) {
    writeVarUint(out, client)
    writeVarUint(out, items.length)
    for (const i of items) {
      writeVarUint(out, i.clock)
      writeVarUint(out, i.len)
    }
  }
  return Uint8Array.from(out)
}

const fail = (code: ReviewViolationCode, message: string, item?: Y.Item | Y.GC): ReviewOnly => ({
  ok: false,
  violation: { code, message, ...(item === undefined ? {} : { at: { client: item.id.client, clock: item.id.clock } }) },
})

function entryOk(kind: string, value: unknown): boolean {
  if (kind === 'suggestion') return parseSuggestion(value) !== undefined
  if (kind === 'comment') return parseComment(value) !== undefined
  if (kind === 'resolution') return parseResolution(value) !== undefined
  return parseDecision(value)?.status === 'withdrawn'
}

function jsonBytes(value: unknown): number {
  try {
    return utf8Bytes(JSON.stringify(value) ?? '')
  } catch {
    return Infinity
  }
}

/** Checks one item; undefined when it is a well-formed fresh review entry. */
function checkItem(item: Y.Item, held: ReadonlyMap<string, Y.Item>, seen: Map<string, number>): ReviewOnly | undefined {
  if (item.origin !== null || item.rightOrigin !== null)
    return fail('REVIEW_ORIGIN', 'a review entry is a fresh key: it has no origin', item)
  if (item.parent !== (REVIEW_ROOT as unknown)) return fail('REVIEW_PARENT', 'a struct outside the review root', item)
  const key = item.parentSub
  const k = key === null ? undefined : parseKey(key)
  if (key === null || k === undefined) return fail('REVIEW_KEY', `not a review key: ${String(key)}`, item)
  if (held.has(key) || seen.has(key)) return fail('REVIEW_OVERWRITE', `key ${key} is already written`, item)
  seen.set(key, item.id.client)
  if (!(item.content instanceof Y.ContentAny) || item.content.arr.length !== 1)
    return fail('REVIEW_CONTENT', 'a review entry is one JSON value', item)
  const value = item.content.arr[0]
  if (jsonBytes(value) > REVIEW_LIMITS.maxEntryBytes)
    return fail('REVIEW_CONTENT', `an entry is at most ${REVIEW_LIMITS.maxEntryBytes} bytes`, item)
  if (!entryOk(k.kind, value))
    return k.kind === 'decision'
      ? fail('REVIEW_DECISION', 'a commenter may only withdraw its own suggestion', item)
      : fail('REVIEW_CONTENT', `not a ${k.kind} entry`, item)
  if (k.kind === 'decision') {
    const writer = held.get(`s:${k.id}`)?.id.client ?? seen.get(`s:${k.id}`)
    if (writer === undefined || !sameWriter(writer, item.id.client))
      return fail('REVIEW_DECISION', 'a commenter may only withdraw its own suggestion', item)
  }
  return undefined
}

/** How many live replica structs the delete set names, walking at most the bound. */
function liveNamed(replica: Y.Doc, ds: Ranges): number {
  let live = 0
  let walked = 0
  for (const [client, ranges] of ds) {
    const structs = replica.store.clients.get(client)
    if (structs === undefined) continue
    const held = Y.getState(replica.store, client)
    for (const r of ranges) {
      if (r.clock >= held) continue
      for (let i = Y.findIndexSS(structs, r.clock); i < structs.length; i++) {
        const s = structs[i]
        if (s === undefined || s.id.clock >= r.clock + r.len || ++walked > REVIEW_LIMITS.maxStructsWalked) break
        if (s instanceof Y.Item && !s.deleted) live += 1
      }
    }
  }
  return live
}

/** Whether `update`, from a commenter, touches only the review structure of `replica`. */
export function checkReviewOnlyUpdate(replica: Y.Doc, update: Uint8Array): ReviewOnly {
  let decoded: { structs: (Y.Item | Y.GC | Y.Skip)[]; ds: { clients: Ranges } }
  try {
    decoded = Y.decodeUpdate(update) as typeof decoded
  } catch {
    return fail('REVIEW_UNDECODABLE', 'not a Yjs update')
  }
  const root = replica.share.get(REVIEW_ROOT)
  // oxlint-disable-next-line no-underscore-dangle -- the keys the replica holds, deleted ones too, without creating the root
  const held: ReadonlyMap<string, Y.Item> = root?._map ?? new Map()
  const seen = new Map<string, number>()
  let entries = 0
  for (const s of decoded.structs) {
    if (s instanceof Y.Skip) continue
    if (s instanceof Y.GC) return fail('REVIEW_GC', 'a GC struct has no parent to check', s)
    if (++entries > REVIEW_LIMITS.maxEntriesPerUpdate)
      return fail('REVIEW_TOO_MANY_ENTRIES', `at most ${REVIEW_LIMITS.maxEntriesPerUpdate} entries a message`, s)
    const bad = checkItem(s, held, seen)
    if (bad !== undefined) return bad
  }
  const ds = decoded.ds.clients
  if (ds.size === 0) return { ok: true, update, entries, cut: { ranges: 0, live: 0 } }
  const whole = encodeDeleteSet(ds)
  const start = update.length - whole.length
  if (start < 0 || whole.some((b, i) => update[start + i] !== b))
    return fail('REVIEW_UNDECODABLE', 'the delete set is not written as Yjs writes one')
  const out = new Uint8Array(start + 1)
  out.set(update.subarray(0, start), 0) // the structs, then an empty delete set (a 0 count)
  let ranges = 0
  for (const r of ds.values()) ranges += r.length
  return { ok: true, update: out, entries, cut: { ranges, live: liveNamed(replica, ds) } }
}
