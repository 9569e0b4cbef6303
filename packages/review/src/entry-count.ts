/**
 * How many review entries an update writes: its items that name the review root as their parent
 * with a key. Every new entry is such an item (a fresh map key has no origin, so Yjs writes its
 * parent and key out); an item with an origin rewrites a key already held and makes no new entry.
 * What a receiving sidecar charges a member's rate with (decision 0038). Pure; reads no replica.
 */
import * as Y from 'yjs'
import { REVIEW_ROOT } from './structure.ts'

/**
 * The number of new review entries `update` writes (only those under a client id `writtenBy`
 * accepts, when given); undefined when it does not decode.
 */
export function countReviewEntries(update: Uint8Array, writtenBy?: (clientId: number) => boolean): number | undefined {
  // A decoded struct names its parent as a root's name (a string) when it is written out.
  let structs: unknown[]
  try {
    structs = (Y.decodeUpdate(update) as { structs: unknown[] }).structs
  } catch {
    return undefined
  }
  let n = 0
  for (const s of structs)
    if (s instanceof Y.Item && (s.parent as unknown) === REVIEW_ROOT && typeof s.parentSub === 'string')
      if (writtenBy === undefined || writtenBy(s.id.client)) n += 1
  return n
}
