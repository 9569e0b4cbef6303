/**
 * Whether a writer's insertion reads given words: what crediting an accepted suggestion
 * (credits.ts) and finding a duplicate acceptance (concurrent-decisions.ts) both ask.
 */
import * as Y from 'yjs'

/**
 * How many of `client`'s letters `[clock, clock + words.length)` are still there, when they are
 * one insertion into one text node and every one still there reads `words` at its offset (deleted
 * ones say nothing); undefined otherwise. Binary search to the first letter, then only the range's
 * own structs.
 */
export function wordsRead(doc: Y.Doc, client: number, clock: number, words: string): number | undefined {
  if (Y.getState(doc.store, client) < clock + words.length) return undefined
  const structs = doc.store.clients.get(client) ?? []
  let at = Y.findIndexSS(structs, clock)
  const parent = structs[at] instanceof Y.Item ? (structs[at] as Y.Item).parent : undefined
  let live = 0
  for (let offset = 0; offset < words.length; at += 1) {
    const s = structs[at]
    if (!(s instanceof Y.Item) || s.parent !== parent) return undefined
    const from = clock + offset - s.id.clock
    const n = Math.min(s.length - from, words.length - offset)
    if (s.content instanceof Y.ContentString) {
      if (s.content.str.slice(from, from + n) !== words.slice(offset, offset + n)) return undefined
      live += s.deleted ? 0 : n
    } else if (!(s.content instanceof Y.ContentDeleted)) return undefined
    offset += n
  }
  return live
}
