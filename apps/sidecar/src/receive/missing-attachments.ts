/**
 * Whether this sidecar still announces it reads attachments, per document. A daemon that keeps no
 * attachments (--ignore-attachments, a full disk) answers "not found" for every reference; so does
 * a member who sends references with nothing attached. The misses are counted per document and per
 * member, so one member's junk in one document withdraws the capability there only, never in the
 * documents that member is not in, and the withdrawal ends on its own after `restoreAfterMs` (the
 * document announces again) or as soon as an attachment in that document is fetched whole.
 */
import type { Timers } from '@e2e-col/sync'

export interface MissingAttachmentsOptions {
  /** "Not found" answers in a row from one member of one document before the document withdraws. */
  inARow: number
  /** How long a document goes without announcing attachments before it announces them again. */
  restoreAfterMs: number
  /** (document, member) counts kept; the least recently touched is forgotten beyond. */
  maxEntries: number
  timers: Timers
  withdraw: (docId: string) => void
  restore: (docId: string) => void
}

export interface MissingAttachments {
  /** A reference from `source` in `docId` named an attachment the daemon does not have. */
  missed(docId: string, source: string): void
  /** A reference from `source` in `docId` was fetched and checked. */
  fetched(docId: string, source: string): void
  /** Documents withdrawn now. */
  readonly withdrawn: ReadonlySet<string>
  /** Counts kept now (at most `maxEntries`). */
  readonly entries: number
  dispose(): void
}

const key = (docId: string, source: string) => `${docId}\n${source}`

export function createMissingAttachments(o: MissingAttachmentsOptions): MissingAttachments {
  // Insertion order is recency order: a touched entry is deleted and set again.
  const counts = new Map<string, number>()
  const withdrawn = new Map<string, unknown>()

  function restore(docId: string): void {
    const timer = withdrawn.get(docId)
    if (timer === undefined) return
    o.timers.clearTimeout(timer)
    withdrawn.delete(docId)
    // Deleting the entry being visited is safe while iterating a Map.
    for (const k of counts.keys()) if (k.startsWith(`${docId}\n`)) counts.delete(k)
    o.restore(docId)
  }

  return {
    missed(docId, source) {
      const k = key(docId, source)
      const n = (counts.get(k) ?? 0) + 1
      counts.delete(k)
      counts.set(k, n)
      if (counts.size > o.maxEntries) counts.delete(counts.keys().next().value as string)
      if (n < o.inARow || withdrawn.has(docId)) return
      withdrawn.set(
        docId,
        o.timers.setTimeout(() => restore(docId), o.restoreAfterMs),
      )
      o.withdraw(docId)
    },
    fetched(docId, source) {
      counts.delete(key(docId, source))
      // An attachment came whole: this daemon keeps them, whatever a member sent before.
      restore(docId)
    },
    get withdrawn() {
      return new Set(withdrawn.keys())
    },
    get entries() {
      return counts.size
    },
    dispose() {
      for (const timer of withdrawn.values()) o.timers.clearTimeout(timer)
      withdrawn.clear()
      counts.clear()
    },
  }
}
