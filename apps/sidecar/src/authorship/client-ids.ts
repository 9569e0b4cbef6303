/**
 * The Yjs client ids whose structs an update carries: the ids its content is written under. Read
 * with `Y.parseUpdateMeta`, which walks the struct headers without building a document; the delete
 * set is not read (removing someone's text is an edit, not authorship).
 * @see docs/decisions/0023-account-derived-client-ids.md
 */
import * as Y from 'yjs'

/** Each client id's clock range `[from, to)` in the update; undefined when it is not a Yjs update. */
export function structClients(update: Uint8Array): ReadonlyMap<number, { from: number; to: number }> | undefined {
  let meta: { from: Map<number, number>; to: Map<number, number> }
  try {
    meta = Y.parseUpdateMeta(update)
  } catch {
    return undefined
  }
  const out = new Map<number, { from: number; to: number }>()
  for (const [client, from] of meta.from) out.set(client, { from, to: meta.to.get(client) ?? from })
  return out
}

/**
 * How far `doc` holds each client's structs, the ones Yjs keeps waiting for missing pieces
 * (`pendingStructs`, a V2 update) included: those are in every encoding of the document, so a copy
 * of it passes them on as if they were new.
 */
export function heldOrWaiting(doc: Y.Doc): (clientId: number) => number {
  const pending = doc.store.pendingStructs
  const waiting = pending === null ? undefined : waitingTo(pending.update)
  return (clientId) => Math.max(Y.getState(doc.store, clientId), waiting?.get(clientId) ?? 0)
}

// Read once per waiting blob, not once per page update: a member's gapped structs may wait long,
// and every keystroke asks (Yjs replaces the blob whenever what waits changes).
const waitingRead = new WeakMap<Uint8Array, ReadonlyMap<number, number>>()
function waitingTo(pending: Uint8Array): ReadonlyMap<number, number> {
  let to = waitingRead.get(pending)
  if (to === undefined) waitingRead.set(pending, (to = Y.parseUpdateMetaV2(pending).to))
  return to
}

/** `update` without the structs `held` covers (its delete set whole): what it writes that is new. */
export function newIn(update: Uint8Array, held: (clientId: number) => number): Uint8Array {
  const clients = structClients(update)
  if (clients === undefined) return update
  const base = new Map<number, number>()
  for (const id of clients.keys()) base.set(id, held(id))
  return Y.diffUpdate(update, Y.encodeStateVector(base))
}
