/**
 * Settles decisions two editors made on one suggestion at the same moment (@e2e-col/review's
 * concurrent-decisions.ts): once they merge, every replica knows which decision Yjs kept, and this
 * sidecar acts on its own account's acceptances only, each as an edit of its own (durable, sent to
 * the group). An acceptance that another acceptance's decision outlasted has its words deleted (a
 * duplicate); one that a rejection or withdrawal outlasted is written again, under its words' own
 * writer. Only the writer acts, so a group sees one small change per acceptance, not one per
 * editor; an acceptance made from another device of the same account is this account's too.
 * @see docs/decisions/0034-review-structure.md §3, docs/review.md
 */
import {
  duplicateAcceptances,
  outvotedAcceptance,
  reassertAcceptance,
  REVIEW_ROOT,
  removeInserted,
  type InsertedRange,
} from '@e2e-col/review'
import type * as Y from 'yjs'
import type { Logger } from '../ops/logger.ts'
import { changed, type ReviewedDoc } from './api-common.ts'

export interface DecisionPorts {
  /** The served document as the review API sees it (undefined when no longer served). */
  reviewed(docId: string): ReviewedDoc | undefined
  /** True for a client id under this account's author tag. */
  own(clientId: number): boolean
  /** Runs `fn` soon, outside the transaction that called for it. */
  defer(fn: () => void): void
  now(): number
  readonly logger: Pick<Logger, 'info' | 'warn'>
}

/** The suggestion ids whose decision `tr` changed in `doc` (none when the document has no review). */
function decided(doc: Y.Doc, tr: Y.Transaction): string[] {
  const root = doc.share.get(REVIEW_ROOT)
  const keys = root === undefined ? undefined : tr.changed.get(root)
  return [...(keys ?? [])].flatMap((key) => (key?.startsWith('d:') === true ? [key.slice(2)] : []))
}

/** What this account must do for suggestion `id`: write an outvoted acceptance again, or take back duplicates. */
function ownPart(
  doc: Y.Doc,
  id: string,
  own: (client: number) => boolean,
): { reassert?: InsertedRange; remove: InsertedRange[] } {
  // Read on the replica itself (a copy would cost the whole document per decision); a malformed
  // review root (another kind of type under its name) names nothing.
  try {
    const reassert = outvotedAcceptance(doc, id, own)
    if (reassert !== undefined) return { reassert, remove: [] }
    return { remove: duplicateAcceptances(doc, id).filter((r) => own(r.client)) }
  } catch {
    return { remove: [] }
  }
}

/**
 * Watches one document in memory (for `documents.onLoad`): after a transaction that changed a
 * decision, this account's part is done. Returns the way to stop.
 */
export function settleConcurrentDecisions(o: DecisionPorts, docId: string, doc: Y.Doc): () => void {
  const waiting = new Set<string>()
  const settle = (): void => {
    const ids = [...waiting]
    waiting.clear()
    const d = o.reviewed(docId)
    // Only an editor's change stands with the other members; its review root exists (it changed).
    if (d === undefined || d.role() !== 'editor' || !d.doc.share.has(REVIEW_ROOT)) return
    for (const id of ids) {
      const { reassert, remove } = ownPart(d.doc, id, o.own)
      try {
        if (reassert !== undefined) {
          changed(d, (work) => reassertAcceptance(work, id, reassert, o.now()), reassert.client)
          o.logger.info({ docId, suggestion: id }, 'wrote an acceptance again that a concurrent rejection outlasted')
        } else if (remove.length > 0) {
          changed(d, (work) => removeInserted(work, remove))
          o.logger.info({ docId, suggestion: id, duplicates: remove.length }, 'took back a duplicate acceptance')
        }
      } catch (error) {
        o.logger.warn({ docId, suggestion: id, err: error }, 'could not settle a concurrent decision on a suggestion')
      }
    }
  }
  const onTransaction = (tr: Y.Transaction): void => {
    const ids = decided(doc, tr)
    if (ids.length === 0) return
    if (waiting.size === 0) o.defer(settle)
    for (const id of ids) waiting.add(id)
  }
  doc.on('afterTransaction', onTransaction)
  return () => doc.off('afterTransaction', onTransaction)
}
