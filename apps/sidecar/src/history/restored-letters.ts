/**
 * Which letters a restore re-created, told to the Yjs document an undo works on: a restore writes
 * the version anew under its own client id (restore.ts), so the version's k-th unit of a root is
 * the k-th unit that client inserted there (a nested type's by the same rule, a map's by key).
 * Each original item is marked `redone` by its copy, as Yjs marks an item an undo brought back: an
 * undo of a deletion then brings back nothing the restore already re-created, and an undo of an
 * insertion deletes the restore's copy of it too.
 * @see docs/decisions/0031-restore-writes-anew.md
 */
import * as Y from 'yjs'
import { rootOf, type SharedKind } from './shared-kinds.ts'

/** A restore among the changes an undo replays: the client id it wrote under and the version it restored. */
export interface RestoreMark {
  readonly clientId: number
  /** The restored version's whole state (a Yjs update). */
  readonly version: Uint8Array
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

/** Marks `[from, to)` of the original item `orig` (offsets in it) as re-created from `copy` at `copyAt`. */
function mark(tr: Y.Transaction, orig: Y.ID, from: number, to: number, copy: Y.ID): void {
  // A version's item the document does not hold (it cannot be: the version is of this document).
  const structs = tr.doc.store.clients.get(orig.client)
  const last = structs?.[structs.length - 1]
  if (last === undefined || last.id.clock + last.length < orig.clock + to) return
  Y.getItemCleanEnd(tr, tr.doc.store, Y.createID(orig.client, orig.clock + to - 1))
  let at = from
  while (at < to) {
    const item = Y.getItemCleanStart(tr, Y.createID(orig.client, orig.clock + at))
    if (!(item instanceof Y.Item)) return
    // The copy cut to the same span: an undo deletes a redone item whole.
    const start = Y.createID(copy.client, copy.clock + at - from)
    Y.getItemCleanStart(tr, start)
    Y.getItemCleanEnd(tr, tr.doc.store, Y.createID(start.client, start.clock + item.length - 1))
    item.redone = start
    at += item.length
  }
}

interface Docs {
  readonly tr: Y.Transaction
  readonly version: Map<unknown, Children>
  readonly work: Map<unknown, Children>
  readonly client: number
}

/** Links the version's units of `v` (in the version's own document) to the copies in `c`. */
function linkType(d: Docs, v: Type, c: Type): void {
  const want = units(v, d.version.get(v)?.first ?? null, (item) => !item.deleted)
  // Spans taken before any is cut (marking cuts the copies).
  const made = units(c, d.work.get(c)?.first ?? null, (item) => item.id.client === d.client).map((item) => ({
    id: item.id,
    length: item.length,
    content: item.content,
  }))
  let [i, j, vAt, cAt] = [0, 0, 0, 0]
  while (i < want.length && j < made.length) {
    const [a, b] = [want[i] as Y.Item, made[j] as (typeof made)[number]]
    const from = Math.max(vAt, cAt)
    const to = Math.min(vAt + a.length, cAt + b.length)
    if (to > from) mark(d.tr, a.id, from - vAt, to - vAt, Y.createID(b.id.client, b.id.clock + from - cAt))
    if (to > from && a.content instanceof Y.ContentType && b.content instanceof Y.ContentType)
      linkType(d, a.content.type as Type, b.content.type as Type)
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
    mark(d.tr, a.id, 0, 1, b.id)
    if (a.content instanceof Y.ContentType && b.content instanceof Y.ContentType)
      linkType(d, a.content.type as Type, b.content.type as Type)
  }
}

/**
 * Marks in `work` (built with `gc: false`, so a deleted copy keeps its content) the items each
 * restore re-created, oldest restore first (a newer restore's copy is the one an undo finds). Call
 * it in the transaction the undo runs in: the copies are cut to the spans they stand in for, and
 * Yjs merges cut items again when a transaction ends.
 */
export function linkRestores(
  work: Y.Doc,
  restores: readonly RestoreMark[],
  kinds: ReadonlyMap<string, SharedKind>,
): void {
  for (const r of restores) {
    const version = new Y.Doc({ gc: false })
    Y.applyUpdate(version, r.version)
    // Roots typed first: typing an untyped root gives its items a new parent.
    const roots = [...kinds].map(([name, kind]) => [rootOf(version, name, kind), rootOf(work, name, kind)] as const)
    work.transact((tr) => {
      const d = { tr, version: childrenOf(version), work: childrenOf(work), client: r.clientId }
      for (const [v, c] of roots) linkType(d, v as Type, c as Type)
    })
    version.destroy()
  }
}
