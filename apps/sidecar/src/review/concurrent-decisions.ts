/**
 * Settles this account's part of decisions two editors made on one suggestion at the same moment
 * (@e2e-col/review's concurrent-decisions.ts): once they merge, every replica knows which decision
 * Yjs kept, and this sidecar acts only on acceptances written under client ids its author book
 * binds to this account (never ids a member only relayed), each as an edit of its own (durable,
 * sent to the group): an acceptance another acceptance outlasted has its untouched words deleted
 * (one change for all of them); one a rejection outlasted is written again under its own id.
 * Only the writer acts, so a group sees one change per acceptance, not one per editor.
 * @see docs/decisions/0034-review-structure.md §3, docs/review.md
 */
import { removeInserted, reviewMap, REVIEW_ROOT, settlementOf, type InsertedRange } from '@e2e-col/review'
import type * as Y from 'yjs'
import type { Logger } from '../ops/logger.ts'
import { changed, type ReviewedDoc } from './api-common.ts'

export interface DecisionPorts {
  /** The served document as the review API sees it (undefined when no longer served). */
  reviewed(docId: string): ReviewedDoc | undefined
  /** True when the document's author book binds `clientId` to this account (not only relayed). */
  own(docId: string, clientId: number): boolean
  /** Runs `fn` soon, outside the transaction that called for it. */
  defer(fn: () => void): void
  readonly logger: Pick<Logger, 'info' | 'warn'>
}

/** The suggestion ids whose decision `tr` changed in `doc` (none when the document has no review). */
function decided(doc: Y.Doc, tr: Y.Transaction): string[] {
  const root = doc.share.get(REVIEW_ROOT)
  const keys = root === undefined ? undefined : tr.changed.get(root)
  return [...(keys ?? [])].flatMap((key) => (key?.startsWith('d:') === true ? [key.slice(2)] : []))
}

/** Applies what settling `ids` asks of this account: one change for the deletions, one per acceptance written again. */
function settle(o: DecisionPorts, docId: string, d: ReviewedDoc, ids: readonly string[]): void {
  const remove: InsertedRange[] = []
  for (const id of ids) {
    const s = settlementOf(d.doc, id, (client) => o.own(docId, client))
    if (s.remove !== undefined) remove.push(s.remove)
    const again = s.reassert
    if (again === undefined) continue
    changed(d, (work) => reviewMap(work).set(`d:${id}`, again.decision), again.client)
    o.logger.info({ docId, suggestion: id }, 'wrote an acceptance again that a concurrent rejection outlasted')
  }
  if (remove.length === 0) return
  changed(d, (work) => removeInserted(work, remove))
  o.logger.info({ docId, duplicates: remove.length }, 'took back duplicate acceptances')
}

/**
 * Watches one document in memory (for `documents.onLoad`): after a transaction that changed
 * decisions, this account's part is done. Returns the way to stop.
 */
export function settleConcurrentDecisions(o: DecisionPorts, docId: string, doc: Y.Doc): () => void {
  const waiting = new Set<string>()
  const run = (): void => {
    const ids = [...waiting]
    waiting.clear()
    const d = o.reviewed(docId)
    // Only an editor's change stands with the other members.
    if (d === undefined || d.role() !== 'editor') return
    try {
      settle(o, docId, d, ids)
    } catch (error) {
      o.logger.warn({ docId, err: error }, 'could not settle concurrent decisions on suggestions')
    }
  }
  const onTransaction = (tr: Y.Transaction): void => {
    const ids = decided(doc, tr)
    if (ids.length === 0) return
    if (waiting.size === 0) o.defer(run)
    for (const id of ids) waiting.add(id)
  }
  doc.on('afterTransaction', onTransaction)
  return () => doc.off('afterTransaction', onTransaction)
}
