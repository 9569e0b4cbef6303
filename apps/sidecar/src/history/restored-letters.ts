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

/** The content units of a sequence, in order; a text's nested types are not restored, so not counted. */
function units(type: Type, keep: (item: Y.Item) => boolean): Y.Item[] {
  const text = type instanceof Y.Text
  const out: Y.Item[] = []
  for (let item = type._start; item !== null; item = item.right)
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

/** Links the version's units of `v` (in the version's own document) to the copies in `c`. */
function linkType(tr: Y.Transaction, v: Type, c: Type, client: number): void {
  const want = units(v, (item) => !item.deleted)
  // Spans taken before any is cut (marking cuts the copies).
  const made = units(c, (item) => item.id.client === client).map((item) => ({
    id: item.id,
    length: item.length,
    content: item.content,
  }))
  let [i, j, vAt, cAt] = [0, 0, 0, 0]
  while (i < want.length && j < made.length) {
    const [a, b] = [want[i] as Y.Item, made[j] as (typeof made)[number]]
    const from = Math.max(vAt, cAt)
    const to = Math.min(vAt + a.length, cAt + b.length)
    if (to > from) mark(tr, a.id, from - vAt, to - vAt, Y.createID(b.id.client, b.id.clock + from - cAt))
    if (to > from && a.content instanceof Y.ContentType && b.content instanceof Y.ContentType)
      linkType(tr, a.content.type as Type, b.content.type as Type, client)
    const [aEnd, bEnd] = [vAt + a.length, cAt + b.length]
    if (aEnd <= bEnd) [vAt, i] = [aEnd, i + 1]
    if (bEnd <= aEnd) [cAt, j] = [bEnd, j + 1]
  }
  for (const [key, a] of v._map) {
    if (a.deleted) continue
    let b: Y.Item | null = c._map.get(key) ?? null
    while (b !== null && b.id.client !== client) b = b.left
    if (b === null) continue
    mark(tr, a.id, 0, 1, b.id)
    if (a.content instanceof Y.ContentType && b.content instanceof Y.ContentType)
      linkType(tr, a.content.type as Type, b.content.type as Type, client)
  }
}

/**
 * Marks in `work` (built with `gc: false`, so a deleted copy keeps its content) the items each
 * restore re-created, oldest restore first (a newer restore's copy is the one an undo finds).
 */
export function linkRestores(
  work: Y.Doc,
  restores: readonly RestoreMark[],
  kinds: ReadonlyMap<string, SharedKind>,
): void {
  for (const r of restores) {
    const version = new Y.Doc({ gc: false })
    Y.applyUpdate(version, r.version)
    work.transact((tr) => {
      for (const [name, kind] of kinds)
        linkType(tr, rootOf(version, name, kind) as Type, rootOf(work, name, kind) as Type, r.clientId)
      // The cut copies stay cut: merged back, one would span more than the letter it stands in for.
      tr._mergeStructs.length = 0
    })
    version.destroy()
  }
}
