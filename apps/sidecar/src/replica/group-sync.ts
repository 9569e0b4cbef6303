/**
 * The replica answers the group's `sync-request`s for this machine, with the very rule the
 * clients follow (`SyncResponder` of `@e2e-col/sync`): only what the asker lacks, suppressed
 * when another member's answer already covered it, and asking back once when the asker holds
 * something the replica lacks. On top of it, the group's answer rule (answer-rule.ts):
 * - the member ranked first for a request answers after the short random delay; the one ranked r
 *   after r fallback bounds (scaled by the answer's size), so one request costs one answer;
 * - per asker (Signal account), at most one request is taken per fallback bound; later ones wait,
 *   the newest replacing older ones, and are dropped if they ask the same again and the answers
 *   seen since they came (this member's or another's) gave the asker all this replica holds (an
 *   answer that adds nothing, an empty one from a hostile member say, drops none);
 * - asking back goes through gap repair, which counts what a member's claims may cost.
 * @see docs/sidecar.md §8.4
 */
import { AnswerCoverage, observeAll, prepareAnswer, SyncResponder, type Timers } from '@e2e-col/sync'
import * as Y from 'yjs'
import type { DocReplica } from './replica.ts'
import { decodeExactStateVector } from './strict-yjs.ts'

export interface GroupSyncOptions {
  readonly minDelayMs: number
  readonly maxDelayMs: number
  readonly random: () => number
  /** The sidecar's clock: the answer, ask-back and waiting delays run on it. */
  readonly timers: Timers
  /** Sends a `sync-response` with this payload to the group. */
  readonly answer: (payload: Uint8Array) => void
  /**
   * Asks the group back (the asker holds something the replica lacks): false when it did not,
   * its claims being over their member's budget (gap-repair.ts, claims.ts).
   */
  readonly askBack: () => boolean
  /** This member's rank (0 first) among those who may answer request `requestId` from `asker`. */
  readonly rank: (requestId: string, asker: string) => number
  /** How long a later-ranked member waits for an answer of `answerBytes`. */
  readonly fallbackMs: (answerBytes: number) => number
  /**
   * Each asker's bound, kept by the caller across this document's stays in memory
   * ({@link createAskerBook}), so taking the document out and in again never lets a member be
   * answered sooner; a new book by default.
   */
  readonly askers?: AskerBook | undefined
}

export interface GroupSync {
  /**
   * A member asked (`asker`: its Signal account; `requestId`: the envelope's sender and message
   * id): `taken` (answered by the rule now), `deferred` (too soon after the asker's last request:
   * taken at the bound unless it asks the same again and the answers since gave the asker all the
   * replica holds), false when the payload is not exactly a state vector (dropped).
   */
  onRequest(stateVector: Uint8Array, asker: string, requestId: string): 'taken' | 'deferred' | false
  /** A member's sync-response or snapshot was seen. */
  onPeerResponse(update: Uint8Array): void
  stats(): { answered: number; suppressed: number; askedBack: number; deferred: number }
  dispose(): void
}

// Requests waiting at once; beyond it the oldest is dropped (its asker asks again).
const MAX_PENDING = 64
// Askers remembered; beyond it the least recent is forgotten (only members ask: §4.6).
const MAX_ASKERS = 256

interface Asker {
  /** Earliest time the next request of this asker is taken. */
  nextAt: number
  /** The state vector last taken. */
  lastAsked: Uint8Array | undefined
  deferred: Deferred | undefined
}

/** A request held until its asker's bound, with what the answers seen since gave its asker. */
interface Deferred {
  stateVector: Uint8Array
  requestId: string
  coverage: AnswerCoverage
  timer: unknown
}

/** Each asker's bound (when its next request is taken, what it last asked), at most 256 askers. */
export type AskerBook = Map<string, Asker>

export const createAskerBook = (): AskerBook => new Map()

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array): boolean =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i])

export function createGroupSync(replica: DocReplica, o: GroupSyncOptions): GroupSync {
  const t = o.timers
  let askedBack = 0
  const askers = o.askers ?? createAskerBook()
  /** Coverages of the requests held for their asker's bound. */
  const held = (): AnswerCoverage[] =>
    [...askers.values()].flatMap((a) => (a.deferred === undefined ? [] : [a.deferred.coverage]))
  /** An answer went out (this member's or another's): what it gave counts for every held request. */
  const seen = (payload: Uint8Array): void => {
    const waiting = held()
    if (waiting.length > 0) observeAll(waiting, prepareAnswer(payload))
  }
  const answer = (payload: Uint8Array): void => {
    seen(payload)
    o.answer(payload)
  }
  const responder = new SyncResponder(
    replica.doc,
    { minDelayMs: o.minDelayMs, maxDelayMs: o.maxDelayMs, maxPending: MAX_PENDING, random: o.random, timers: t },
    answer,
    () => {
      if (o.askBack()) askedBack += 1
    },
  )
  let deferred = 0
  let covered = 0

  function take(a: Asker, stateVector: Uint8Array, asker: string, requestId: string): void {
    let answerBytes: number
    try {
      answerBytes = replica.diff(stateVector).byteLength
    } catch {
      // Checked when it arrived; a timer must never throw out of the sidecar.
      return
    }
    const bound = o.fallbackMs(answerBytes)
    const rank = o.rank(requestId, asker)
    a.nextAt = t.now() + bound
    // A copy: the payload may be a view into a receive buffer, and the book outlives this stay.
    a.lastAsked = stateVector.slice()
    responder.onRequest(stateVector, rank === 0 ? undefined : rank * bound + Math.floor(o.random() * o.maxDelayMs))
  }

  function askerState(asker: string): Asker {
    let a = askers.get(asker)
    if (a !== undefined) return a
    a = { nextAt: Number.NEGATIVE_INFINITY, lastAsked: undefined, deferred: undefined }
    if (askers.size >= MAX_ASKERS) {
      const [oldestKey, oldest] = askers.entries().next().value ?? []
      if (oldest?.deferred !== undefined) t.clearTimeout(oldest.deferred.timer)
      if (oldestKey !== undefined) askers.delete(oldestKey)
    }
    askers.set(asker, a)
    return a
  }

  return {
    onRequest(stateVector, asker, requestId) {
      if (decodeExactStateVector(stateVector) === undefined) return false
      const a = askerState(asker)
      const now = t.now()
      if (a.deferred === undefined && now >= a.nextAt) {
        take(a, stateVector, asker, requestId)
        return 'taken'
      }
      // Too soon after this asker's last request: wait for the bound, keeping only the newest.
      if (a.deferred !== undefined) t.clearTimeout(a.deferred.timer)
      deferred += 1
      // A copy: the payload may be a view into a receive buffer that is reused before the timer fires.
      const request = {
        stateVector: stateVector.slice(),
        requestId,
        coverage: new AnswerCoverage(Y.decodeStateVector(stateVector)),
      }
      const timer = t.setTimeout(
        () => {
          a.deferred = undefined
          // Asked the same again, and the answers since gave the asker all there is: they were for it too.
          if (sameBytes(a.lastAsked, request.stateVector) && request.coverage.covers(replica.doc))
            return void (covered += 1)
          take(a, request.stateVector, asker, request.requestId)
        },
        Math.max(0, a.nextAt - now),
      )
      a.deferred = { ...request, timer }
      return 'deferred'
    },
    onPeerResponse(update) {
      const waiting = held()
      if (waiting.length === 0 && responder.pending === 0) return
      try {
        // Decoded once for the held requests and the responder's.
        const prepared = prepareAnswer(update)
        observeAll(waiting, prepared)
        responder.onPeerAnswer(prepared)
      } catch {
        // already refused by the replica; nothing to cover
      }
    },
    stats: () => ({
      answered: responder.stats.answered,
      suppressed: responder.stats.suppressed + covered,
      askedBack,
      deferred,
    }),
    dispose: () => {
      responder.dispose()
      // The bounds stay in the book; a held request goes (its asker asks again).
      for (const a of askers.values()) {
        if (a.deferred !== undefined) t.clearTimeout(a.deferred.timer)
        a.deferred = undefined
      }
    },
  }
}
