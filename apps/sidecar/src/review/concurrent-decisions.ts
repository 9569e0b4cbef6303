/**
 * Settles this sidecar's own acceptances when a decision on the same suggestion was made at the
 * same moment (@e2e-col/review's concurrent-decisions.ts): once the decisions merge, every replica
 * knows which one Yjs kept. An acceptance another acceptance outlasted has its untouched words
 * deleted; one a rejection outlasted is written again (once) under its own id. Only acceptances
 * this sidecar recorded as it wrote them are settled (own-acceptances.ts), so a group sees one
 * change per acceptance, never one per editor, and nothing another device or member wrote under
 * this account's tag is ever signed or deleted here. Everything one run settles is one change
 * (durable, sent to the group). Run after each transaction that changes a decision, and when the
 * document comes into memory (a change met while the sidecar was stopping is settled then).
 * @see docs/decisions/0034-review-structure.md §3, docs/review.md
 */
import {
  removeInserted,
  reviewMap,
  REVIEW_ROOT,
  settlementOf,
  type InsertedRange,
  type Settlement,
} from '@e2e-col/review'
import type * as Y from 'yjs'
import type { Logger } from '../ops/logger.ts'
import { changed, type ReviewedDoc } from './api-common.ts'
import type { OwnAcceptances } from './own-acceptances.ts'

export interface DecisionPorts {
  /** The served document as the review API sees it (undefined when no longer served). */
  reviewed(docId: string): ReviewedDoc | undefined
  readonly acceptances: Pick<OwnAcceptances, 'mine' | 'suggestions'>
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

/** Settles `ids` of `docId`: what this sidecar's own acceptances ask, applied as one change. */
function settle(o: DecisionPorts, docId: string, d: ReviewedDoc, ids: Iterable<string>): void {
  const remove: InsertedRange[] = []
  const again: { id: string; reassert: NonNullable<Settlement['reassert']> }[] = []
  for (const id of ids) {
    const mine = o.acceptances.mine(docId, id)
    const s = mine === undefined ? {} : settlementOf(d.doc, id, mine)
    if (s.remove !== undefined) remove.push(s.remove)
    if (s.reassert !== undefined) again.push({ id, reassert: s.reassert })
  }
  if (remove.length === 0 && again.length === 0) return
  changed(d, (work) => {
    removeInserted(work, remove)
    for (const { id, reassert } of again) {
      // Under the acceptance's own id, so "Who wrote this" still credits the suggester.
      work.clientID = reassert.client
      reviewMap(work).set(`d:${id}`, reassert.decision)
    }
  })
  o.logger.info({ docId, duplicates: remove.length, writtenAgain: again.length }, 'settled concurrent decisions')
}

/**
 * Watches one document in memory (for `documents.onLoad`): its recorded acceptances are settled
 * now and after each transaction that changes a decision. Returns the way to stop.
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
  const want = (ids: Iterable<string>): void => {
    const mine = [...ids].filter((id) => o.acceptances.mine(docId, id) !== undefined)
    if (mine.length === 0) return
    if (waiting.size === 0) o.defer(run)
    for (const id of mine) waiting.add(id)
  }
  const onTransaction = (tr: Y.Transaction): void => want(decided(doc, tr))
  want(o.acceptances.suggestions(docId))
  doc.on('afterTransaction', onTransaction)
  return () => doc.off('afterTransaction', onTransaction)
}
