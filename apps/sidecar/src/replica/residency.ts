/**
 * Which served documents stay in memory (decisions/0040): each use touches a document; one left
 * alone for `evictAfterMs` leaves when it is quiet, and beyond `maxLoaded` in memory the least
 * recently used ones leave first when they hold nothing unsaved. Pure bookkeeping: the collection
 * (documents.ts) says what "quiet" and "nothing unsaved" mean and does the loading and leaving.
 */

export interface ResidencyOptions {
  /** Untouched this long, a quiet document leaves (0: only `maxLoaded` makes documents leave). */
  readonly evictAfterMs: number
  /** Documents in memory beyond this leave, least recently used first. */
  readonly maxLoaded: number
  readonly now: () => number
}

/** How a document in memory stands: `quiet` (nothing waiting at all) implies `safe` (nothing unsaved or pending). */
export interface Standing {
  /** Nothing of it would be lost or delayed by leaving: no page, no send waiting, no version pending. */
  readonly safe: boolean
  /** Safe, and no ask of the group waiting either. */
  readonly quiet: boolean
}

export interface Residency {
  /** A document was loaded or used now (moved to the most recently used end). */
  touch(docId: string): void
  /** A document left memory or stopped being served. */
  forget(docId: string): void
  readonly size: number
  /**
   * The documents to take out of memory now: quiet ones untouched for `evictAfterMs`; then, while
   * more than `maxLoaded - room` stay (room for a load to come), the least recently used quiet
   * ones, then safe ones. One used in the last 2 s stays whatever the count (it is in the middle of
   * an exchange).
   */
  due(standing: (docId: string) => Standing, room?: number): string[]
}

// A document just loaded or used is not taken out for the cap: it is in the middle of an exchange.
const MIN_RESIDENT_MS = 2000

export function createResidency(o: ResidencyOptions): Residency {
  // Insertion order is recency: a touch moves the document to the end.
  const touched = new Map<string, number>()
  return {
    touch(docId) {
      touched.delete(docId)
      touched.set(docId, o.now())
    },
    forget: (docId) => void touched.delete(docId),
    get size() {
      return touched.size
    },
    due(standing, room = 0) {
      const now = o.now()
      // Least recently used first; one used in the last moments is in the middle of an exchange.
      const old = [...touched].filter(([, at]) => now - at >= MIN_RESIDENT_MS)
      const known = new Map<string, Standing>()
      const of = (docId: string): Standing => {
        let s = known.get(docId)
        if (s === undefined) known.set(docId, (s = standing(docId)))
        return s
      }
      const out = new Set<string>()
      if (o.evictAfterMs > 0)
        for (const [docId, at] of old) if (now - at >= o.evictAfterMs && of(docId).quiet) out.add(docId)
      // Beyond the bound: quiet ones first, then ones whose only wait is an ask of the group.
      for (const pass of ['quiet', 'safe'] as const)
        for (const [docId] of old) {
          if (touched.size - out.size + room <= o.maxLoaded) return [...out]
          if (!out.has(docId) && of(docId)[pass]) out.add(docId)
        }
      return [...out]
    },
  }
}
