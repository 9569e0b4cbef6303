/**
 * How far this page's changes have got, from the sidecar's `delivery` notes (docs/sidecar.md §4.3):
 * three truthful states, weakest first, for each change and for the document:
 * - `browser`: saved in this browser only (in the outbox, not yet acknowledged);
 * - `sidecar`: saved by your sidecar (durable in its replica; the browser may forget it), not yet
 *   accepted by Signal;
 * - `group`: sent to the group (Signal accepted it).
 * A page shows the weakest that applies, with Signal's state as the sidecar sees it
 * ("3 changes saved on this computer, not yet sent: Signal is unreachable since 10:42").
 */
import type { DeliveryNote, DocRole, SignalState } from '@e2e-col/protocol'

export type ChangeState = 'browser' | 'sidecar' | 'group'

export interface DeliveryStatus {
  /** Signal as the sidecar sees it; null until the sidecar's first note (or from a sidecar without notes). */
  readonly signal: SignalState | null
  /** When `signal` entered its state (ms since the epoch), null while reachable. */
  readonly since: number | null
  /** Changes of this document the sidecar holds that Signal has not taken (from every page). */
  readonly unsent: number
  /** Why Signal refused the last change (the daemon's words), while `signal` is `refused`. */
  readonly reason: string | null
  /**
   * Changes of this page Signal refused since its last good send. They are not retried: they stay
   * in the document and in the sidecar's replica and reach the group with the next sync exchange.
   */
  readonly refused: number
  /**
   * What this account may do in the document, as its sidecar last said: `viewer` pages are
   * read-only (the sidecar refuses their changes with `SIDECAR_READ_ONLY`). Optional so that a
   * status made by hand (tests, other providers) stays valid; absent means `editor`.
   */
  readonly role?: DocRole
}

export const NO_DELIVERY: DeliveryStatus = {
  signal: null,
  since: null,
  unsent: 0,
  reason: null,
  refused: 0,
  role: 'editor',
}

/** The weakest state any change of the document is in. */
export function weakestState(pending: number, delivery: DeliveryStatus): ChangeState {
  if (pending > 0) return 'browser'
  if (delivery.unsent > 0) return 'sidecar'
  return 'group'
}

/** Folds the sidecar's notes and this page's refusals into one {@link DeliveryStatus}. */
export class DeliveryTracker {
  #status: DeliveryStatus = NO_DELIVERY

  get status(): DeliveryStatus {
    return this.#status
  }

  /** Returns the ids the note says Signal took. */
  onNote(note: DeliveryNote): readonly string[] {
    const cleared = note.signal !== 'refused' && note.sent.length > 0
    this.#status = {
      signal: note.signal,
      since: note.since,
      unsent: note.unsent,
      reason: note.signal === 'refused' ? (note.reason ?? null) : null,
      refused: cleared ? 0 : this.#status.refused,
      role: note.role ?? 'editor',
    }
    return note.sent
  }

  onRefused(reason: string): void {
    this.#status = { ...this.#status, signal: 'refused', reason, refused: this.#status.refused + 1 }
  }
}
