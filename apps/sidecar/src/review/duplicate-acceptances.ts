/**
 * Two editors accepting one suggestion at once insert its words twice (@e2e-col/review's
 * duplicate-acceptances.ts): once the decisions merge, every replica knows which insertion the
 * kept decision names, and the writer of each other one takes it back: this sidecar deletes the
 * duplicates written under its own account's author tag, as an edit of its own (durable, sent to
 * the group). Only the writer acts, so a group sees one small deletion per duplicate, not one per
 * editor; an acceptance made from another device of the same account is this account's too.
 * @see docs/decisions/0034-review-structure.md §3, docs/review.md
 */
import { duplicateAcceptances, REVIEW_ROOT, removeInserted, type InsertedRange } from '@e2e-col/review'
import type * as Y from 'yjs'
import type { Logger } from '../ops/logger.ts'
import { changed, type ReviewedDoc } from './api-common.ts'

export interface DuplicatePorts {
  /** The served document as the review API sees it (undefined when no longer served). */
  reviewed(docId: string): ReviewedDoc | undefined
  /** True for a client id under this account's author tag. */
  own(clientId: number): boolean
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

/** This account's duplicates among the acceptances of `ids` (a malformed review root names none). */
function ownDuplicates(d: ReviewedDoc, ids: Iterable<string>, own: (client: number) => boolean): InsertedRange[] {
  // Read on the replica itself (a copy would cost the whole document per decision): its review root exists.
  if (!d.doc.share.has(REVIEW_ROOT)) return []
  try {
    return [...ids].flatMap((id) => duplicateAcceptances(d.doc, id)).filter((r) => own(r.client))
  } catch {
    return []
  }
}

/**
 * Watches one document in memory (for `documents.onLoad`): after a transaction that changed a
 * decision, its own duplicates are taken back. Returns the way to stop.
 */
export function takeBackDuplicates(o: DuplicatePorts, docId: string, doc: Y.Doc): () => void {
  const waiting = new Set<string>()
  const settle = (): void => {
    const ids = [...waiting]
    waiting.clear()
    const d = o.reviewed(docId)
    // Only an editor's deletion stands with the other members.
    if (d === undefined || d.role() !== 'editor') return
    const mine = ownDuplicates(d, ids, o.own)
    if (mine.length === 0) return
    try {
      changed(d, (work) => removeInserted(work, mine))
      o.logger.info({ docId, duplicates: mine.length }, 'took back a duplicate acceptance of a suggestion')
    } catch (error) {
      o.logger.warn({ docId, err: error }, 'could not take back a duplicate acceptance; the words read twice')
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
