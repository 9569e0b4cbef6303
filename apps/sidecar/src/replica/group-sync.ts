/**
 * The replica answers the group's `sync-request`s for this machine, with the very rule the
 * clients follow (`SyncResponder` of `@e2e-col/sync`): after a small random delay, only what the
 * asker lacks, suppressed when another member's answer already covered it, and asking back once
 * when the asker holds something the replica lacks.
 * @see docs/sidecar.md §8
 */
import { SyncResponder, type Timers } from '@e2e-col/sync'
import type { DocReplica } from './replica.ts'
import { decodeExactStateVector } from './strict-yjs.ts'

export interface GroupSyncOptions {
  readonly minDelayMs: number
  readonly maxDelayMs: number
  readonly random: () => number
  /** The sidecar's clock: the answer and ask-back delays run on it. */
  readonly timers: Timers
  /** Sends a `sync-response` with this payload to the group. */
  readonly answer: (payload: Uint8Array) => void
  /** Sends the replica's own `sync-request` to the group. */
  readonly ask: () => void
}

export interface GroupSync {
  /** A member asked; false when the payload is not a state vector (dropped). */
  onRequest(stateVector: Uint8Array): boolean
  /** A member's sync-response or snapshot was seen. */
  onPeerResponse(update: Uint8Array): void
  stats(): { answered: number; suppressed: number; askedBack: number }
  dispose(): void
}

// Requests waiting at once; beyond it the oldest is dropped (its asker asks again).
const MAX_PENDING = 64

export function createGroupSync(replica: DocReplica, o: GroupSyncOptions): GroupSync {
  const responder = new SyncResponder(replica.doc, { minDelayMs: o.minDelayMs, maxDelayMs: o.maxDelayMs, maxPending: MAX_PENDING, random: o.random, timers: o.timers }, o.answer, o.ask)
  return {
    onRequest(stateVector) {
      if (decodeExactStateVector(stateVector) === undefined) return false
      try {
        responder.onRequest(stateVector)
        return true
      } catch {
        return false
      }
    },
    onPeerResponse(update) {
      try {
        responder.onPeerResponse(update)
      } catch {
        // already refused by the replica; nothing to cover
      }
    },
    stats: () => ({ answered: responder.stats.answered, suppressed: responder.stats.suppressed, askedBack: responder.stats.askedBack }),
    dispose: () => responder.dispose(),
  }
}
