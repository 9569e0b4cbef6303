/**
 * The change that undoes one member's changes since a moment and keeps everyone else's. The
 * document is rebuilt as it stood then (a version plus the logged changes up to that moment), the
 * later changes are replayed with their authors as transaction origins, and a Yjs UndoManager that
 * tracks only the member's origin undoes its whole stack: what the member inserted is deleted,
 * what the member deleted comes back, and the others' concurrent edits stay. A restore among the
 * later changes wrote its version anew: its copies stand in for the letters they re-created
 * (restored-letters.ts), so the undo brings back nothing twice and removes the member's restored
 * writing too.
 * @see docs/documents.md "History"
 */
import * as Y from 'yjs'
import { readRestoreRecords } from './restore-record.ts'
import { linkRestores, type RestoreMark } from './restored-letters.ts'
import { rootKinds, rootOf } from './shared-kinds.ts'

export interface LoggedChange {
  /** Who made it: a member's number (or Signal id), this person's own number for a page's change. */
  readonly author: string
  readonly data: Uint8Array
}

/**
 * The Yjs update that undoes `author`'s part of `later`, from the state `base` (a version's whole
 * state plus the changes before the moment). Undefined when `author` changed nothing there.
 * `kindsFrom` is the document now, which names every root and its kind. The update is written
 * under `clientId` when given (one made from the account's author tag, decisions/0023). The
 * restores among `later` are read from their records in the document (restore-record.ts).
 */
export function revertChange(
  base: readonly Uint8Array[],
  later: readonly LoggedChange[],
  author: string,
  kindsFrom: Y.Doc,
  clientId?: number,
): Uint8Array | undefined {
  // Not collected: a restore's copy deleted since keeps its content, so it can be matched.
  const work = new Y.Doc({ gc: false })
  if (clientId !== undefined) work.clientID = clientId
  for (const update of base) Y.applyUpdate(work, update)
  const had = Y.decodeStateVector(Y.encodeStateVector(work))
  const scope = [...rootKinds(kindsFrom, work)].map(([name, kind]) => rootOf(work, name, kind))
  const theirs = { author }
  const others = { author: '' }
  const undo = new Y.UndoManager(scope, { trackedOrigins: new Set([theirs]), captureTimeout: 0 })
  try {
    for (const change of later) Y.applyUpdate(work, change.data, change.author === author ? theirs : others)
    if (undo.undoStack.length === 0) return undefined
    const before = Y.encodeStateVector(work)
    const was = Y.snapshot(work)
    // One transaction: the copies a restore made stay cut to what they stand in for until the undo is done.
    work.transact((tr) => {
      linkRestores(tr, restoresIn(work, had, later))
      while (undo.undoStack.length > 0) undo.undo()
    })
    // Everything the member did is gone already (a restore took it): nothing to change.
    return Y.equalSnapshots(was, Y.snapshot(work)) ? undefined : Y.encodeStateAsUpdate(work, before)
  } finally {
    undo.destroy()
  }
}

/** The restores recorded by `later` (not in the state `had`), oldest first: in the order of the changes that carried them. */
function restoresIn(work: Y.Doc, had: Map<number, number>, later: readonly LoggedChange[]): RestoreMark[] {
  const carried = readRestoreRecords(work).filter((r) => r.clock >= (had.get(r.clientId) ?? 0))
  if (carried.length === 0) return []
  const ranges = later.map((c) => Y.parseUpdateMeta(c.data))
  const index = (r: (typeof carried)[number]): number =>
    ranges.findIndex(
      ({ from, to }) => (from.get(r.clientId) ?? Infinity) <= r.clock && r.clock < (to.get(r.clientId) ?? 0),
    )
  return carried
    .map((r) => ({ r, at: index(r) }))
    .sort((x, y) => x.at - y.at || x.r.clock - y.r.clock)
    .map(({ r }) => ({ clientId: r.clientId, spans: r.spans }))
}
