/**
 * Which letters a restore re-created, told to the Yjs document an undo works on: a restore writes
 * the version anew under its own client id (restore.ts), so the version's k-th unit of a root is
 * the k-th unit that client inserted there (a nested type's by the same rule, a map's by key). The
 * restorer pairs them once and records the runs in the document (restore-record.ts), so every
 * member's undo reads the same pairs.
 * Each original item is marked `redone` by its copy, as Yjs marks an item an undo brought back: an
 * undo of a deletion then brings back nothing the restore already re-created, and an undo of an
 * insertion deletes the restore's copy of it too.
 * @see docs/decisions/0031-restore-writes-anew.md
 */
import * as Y from 'yjs'
import { rootOf, type SharedKind } from './shared-kinds.ts'

/** A restore among the changes an undo replays: the client id it wrote under and its copies' runs. */
export interface RestoreMark {
  readonly clientId: number
  /** Flat `[original client, original clock, length, copy clock]` runs (restore-record.ts). */
  readonly spans: readonly number[]
}

type Type = Y.AbstractType<unknown>

/** A type's first item and its keyed items (a map's entries, an element's attributes). */
interface Children {
  first: Y.Item | null
  readonly keyed: Map<string, Y.Item[]>
}

/** Every type's children, read once from the document's struct store (Yjs has no public accessor). */
function childrenOf(doc: Y.Doc): Map<unknown, Children> {
  const all = new Map<unknown, Children>()
  for (const structs of doc.store.clients.values())
    for (const item of structs) {
      if (!(item instanceof Y.Item)) continue
      let c = all.get(item.parent)
      if (c === undefined) all.set(item.parent, (c = { first: null, keyed: new Map() }))
      if (item.parentSub === null) {
        if (item.left === null) c.first = item
      } else c.keyed.set(item.parentSub, [...(c.keyed.get(item.parentSub) ?? []), item])
    }
  return all
}

/** The content units of a sequence, in order; a text's nested types are not restored, so not counted. */
function units(type: Type, first: Y.Item | null, keep: (item: Y.Item) => boolean): Y.Item[] {
  const text = type instanceof Y.Text
  const out: Y.Item[] = []
  for (let item = first; item !== null; item = item.right)
    if (item.countable && !(text && item.content instanceof Y.ContentType) && keep(item)) out.push(item)
  return out
}

/** Marks `[from, to)` of the original item `orig` (offsets in it) as re-created from `copy`. */
function mark(tr: Y.Transaction, orig: Y.ID, from: number, to: number, copy: Y.ID): void {
  // Runs come from a record in the document (untrusted): both must be items this document holds.
  if (!holds(tr.doc, orig.client, orig.clock + to) || !holds(tr.doc, copy.client, copy.clock + to - from)) return
  Y.getItemCleanEnd(tr, tr.doc.store, Y.createID(orig.client, orig.clock + to - 1))
  let at = from
  while (at < to) {
    const item = Y.getItemCleanStart(tr, Y.createID(orig.client, orig.clock + at))
    if (!(item instanceof Y.Item)) return
    // The copy cut to the same span: an undo deletes a redone item whole.
    const start = Y.createID(copy.client, copy.clock + at - from)
    const copied = Y.getItemCleanStart(tr, start)
    if (!(copied instanceof Y.Item)) return
    Y.getItemCleanEnd(tr, tr.doc.store, Y.createID(start.client, start.clock + item.length - 1))
    item.redone = start
    at += item.length
  }
}

/** Whether `doc` holds `client`'s structs up to (not including) clock `end`. */
function holds(doc: Y.Doc, client: number, end: number): boolean {
  const structs = doc.store.clients.get(client)
  const last = structs?.[structs.length - 1]
  return last !== undefined && last.id.clock + last.length >= end
}

interface Pairing {
  readonly version: Map<unknown, Children>
  readonly work: Map<unknown, Children>
  readonly client: number
  /** The runs found: `[original client, original clock, length, copy clock]`. */
  readonly spans: number[]
}

/** Pairs the version's units of `v` (in the version's own document) with the copies in `c`. */
function pairType(d: Pairing, v: Type, c: Type): void {
  const want = units(v, d.version.get(v)?.first ?? null, (item) => !item.deleted)
  const made = units(c, d.work.get(c)?.first ?? null, (item) => item.id.client === d.client)
  let [i, j, vAt, cAt] = [0, 0, 0, 0]
  while (i < want.length && j < made.length) {
    const [a, b] = [want[i] as Y.Item, made[j] as Y.Item]
    const from = Math.max(vAt, cAt)
    const to = Math.min(vAt + a.length, cAt + b.length)
    if (to > from) d.spans.push(a.id.client, a.id.clock + from - vAt, to - from, b.id.clock + from - cAt)
    if (to > from && a.content instanceof Y.ContentType && b.content instanceof Y.ContentType)
      pairType(d, a.content.type as Type, b.content.type as Type)
    const [aEnd, bEnd] = [vAt + a.length, cAt + b.length]
    if (aEnd <= bEnd) [vAt, i] = [aEnd, i + 1]
    if (bEnd <= aEnd) [cAt, j] = [bEnd, j + 1]
  }
  for (const [key, entries] of d.version.get(v)?.keyed ?? []) {
    const a = entries.find((item) => !item.deleted)
    const b = d.work
      .get(c)
      ?.keyed.get(key)
      ?.find((item) => item.id.client === d.client)
    if (a === undefined || b === undefined) continue
    d.spans.push(a.id.client, a.id.clock, 1, b.id.clock)
    if (a.content instanceof Y.ContentType && b.content instanceof Y.ContentType)
      pairType(d, a.content.type as Type, b.content.type as Type)
  }
}

/**
 * Which original letters each run of a restore's copies stands in for, read right after the
 * restore (restore.ts) wrote `version`'s content into `work` under `clientId`: flat
 * `[original client, original clock, length, copy clock]` runs, the record every member reads.
 */
export function restoredSpans(
  version: Y.Doc,
  work: Y.Doc,
  clientId: number,
  kinds: ReadonlyMap<string, SharedKind>,
): number[] {
  const d: Pairing = { version: childrenOf(version), work: childrenOf(work), client: clientId, spans: [] }
  for (const [name, kind] of kinds) pairType(d, rootOf(version, name, kind) as Type, rootOf(work, name, kind) as Type)
  return d.spans
}

/**
 * Marks in the document `tr` works on (built with `gc: false`, so a deleted copy keeps its
 * content) the items each restore re-created, oldest restore first (a newer restore's copy is the
 * one an undo finds). Call it in the transaction the undo runs in: the copies are cut to the runs
 * they stand in for, and Yjs merges cut items again when a transaction ends.
 */
export function linkRestores(tr: Y.Transaction, restores: readonly RestoreMark[]): void {
  for (const r of restores)
    for (let i = 0; i + 3 < r.spans.length; i += 4) {
      const [client, clock, length, copy] = r.spans.slice(i, i + 4) as [number, number, number, number]
      mark(tr, Y.createID(client, clock), 0, length, Y.createID(r.clientId, copy))
    }
}
