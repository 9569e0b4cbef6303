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
