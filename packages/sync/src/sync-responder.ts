/**
 * Answers peers' `sync-request`s with only what they lack, without a reply storm.
 *
 * Each answer waits a small random delay. While it waits, every `sync-response` seen from another peer
 * extends what the asker is known to have (the response's struct ranges that connect to it, gaps
 * excluded). When the timer fires and another peer has answered and what our document held when
 * the request came adds nothing beyond that coverage, the answer is suppressed (what reached us
 * since reached the group, the asker too). A group of N therefore sends
 * about one answer instead of N.
 *
 * A request also tells us what the asker has: when its state vector is ahead of ours, we ask back
 * (once, after a random delay, and only if we still lack something by then). Both sides thus learn
 * what the other holds, as y-websocket's server answers step 1 with step 2 and its own step 1.
 *
 * State vectors do not describe deletions (a pure deletion does not advance a clock). Every answer
 * carries its sender's whole delete set, so we also suppress only when the answers seen cover our
 * delete set; a request that nobody else answered is always answered.
 */
import * as Y from 'yjs'
import { AnswerCoverage, observeAll, prepareAnswer, type PreparedAnswer } from './answer-coverage.ts'
import type { Timers } from './timers.ts'

/** Options of {@link SyncResponder}. */
export interface SyncResponderOptions {
  readonly minDelayMs: number
  readonly maxDelayMs: number
  /** Requests waiting at once; beyond it the oldest is dropped (its asker will ask again). */
  readonly maxPending: number
  readonly random: () => number
  readonly timers: Timers
}

interface PendingRequest {
  /** What the asker holds, with the answers seen so far. */
  coverage: AnswerCoverage
  /**
   * What the document held when the request came: the answer owes the asker no more. What came
   * later came to the group (an update, another's answer) or went to it (our own), so the asker
   * sees it as we did; counting it would have every later-ranked peer answer each edit made while
   * it waits. Undefined when structs or deletions waited in Yjs for a missing piece: they came
   * before the request and may join the document while it waits, so the answer owes what the
   * document holds when it fires.
   */
  held: Y.Snapshot | undefined
  timer: unknown
}

const waiting = (doc: Y.Doc): boolean => doc.store.pendingStructs !== null || doc.store.pendingDs !== null

/** Counters for tests and diagnostics. */
export interface SyncResponderStats {
  answered: number
  suppressed: number
  dropped: number
  askedBack: number
}

/** Schedules answers to sync requests for one document. */
export class SyncResponder {
  readonly #doc: Y.Doc
  readonly #options: SyncResponderOptions
  readonly #send: (payload: Uint8Array) => void
  readonly #pending = new Set<PendingRequest>()
  readonly #askBack: () => void
  #askTimer: unknown = undefined
  readonly #askTarget = new Map<number, number>()
  readonly stats: SyncResponderStats = { answered: 0, suppressed: 0, dropped: 0, askedBack: 0 }

  /**
   * @param send - sends a `sync-response` with this payload
   * @param askBack - sends our own `sync-request` (the asker holds something we lack)
   */
  constructor(doc: Y.Doc, options: SyncResponderOptions, send: (payload: Uint8Array) => void, askBack: () => void) {
    this.#doc = doc
    this.#options = options
    this.#send = send
    this.#askBack = askBack
  }

  /**
   * A peer asked, sending its state vector. `delayMs` replaces the random delay (a caller that
   * knows who should answer first waits longer when it is not the one).
   * @throws Error from Yjs when `stateVector` is not a valid encoded state vector
   */
  onRequest(stateVector: Uint8Array, delayMs?: number): void {
    const covered = Y.decodeStateVector(stateVector)
    if (this.#pending.size >= this.#options.maxPending) {
      const oldest = this.#pending.values().next().value
      if (oldest !== undefined) this.#cancel(oldest)
      this.stats.dropped += 1
    }
    const request: PendingRequest = {
      coverage: new AnswerCoverage(covered),
      held: waiting(this.#doc) ? undefined : Y.snapshot(this.#doc),
      timer: undefined,
    }
    request.timer = this.#options.timers.setTimeout(() => this.#fire(request), delayMs ?? this.#delay())
    this.#pending.add(request)
    if (this.#lacks(covered)) {
      for (const [client, clock] of covered) {
        this.#askTarget.set(client, Math.max(clock, this.#askTarget.get(client) ?? 0))
      }
      this.#askTimer ??= this.#options.timers.setTimeout(() => this.#fireAsk(), this.#delay())
    }
  }

  /**
   * Another peer's `sync-response` (or `snapshot`) was seen: extend what pending askers have.
   * @throws Error from Yjs on a malformed update
   */
  onPeerResponse(update: Uint8Array): void {
    if (this.#pending.size > 0) this.onPeerAnswer(prepareAnswer(update))
  }

  /** {@link onPeerResponse} with the answer decoded already (once, for whoever else counts it). */
  onPeerAnswer(answer: PreparedAnswer): void {
    observeAll(
      [...this.#pending].map((request) => request.coverage),
      answer,
    )
  }

  /** Requests waiting for their answer. */
  get pending(): number {
    return this.#pending.size
  }

  /** Cancels every waiting answer. */
  dispose(): void {
    for (const request of this.#pending) this.#cancel(request)
    this.#options.timers.clearTimeout(this.#askTimer)
    this.#askTimer = undefined
  }

  #delay(): number {
    const { minDelayMs, maxDelayMs, random } = this.#options
    return minDelayMs + Math.floor(random() * Math.max(0, maxDelayMs - minDelayMs))
  }

  /** True when `other` holds some clock range our document does not. */
  #lacks(other: Map<number, number>): boolean {
    const ours = Y.decodeStateVector(Y.encodeStateVector(this.#doc))
    for (const [client, clock] of other) if (clock > (ours.get(client) ?? 0)) return true
    return false
  }

  #fireAsk(): void {
    this.#askTimer = undefined
    // Someone else's answer may have brought us up to date while we waited.
    if (this.#lacks(this.#askTarget)) {
      this.stats.askedBack += 1
      this.#askBack()
    }
    this.#askTarget.clear()
  }

  #fire(request: PendingRequest): void {
    this.#pending.delete(request)
    if (request.coverage.covers(request.held ?? this.#doc)) {
      this.stats.suppressed += 1
      return
    }
    this.stats.answered += 1
    this.#send(Y.encodeStateAsUpdate(this.#doc, Y.encodeStateVector(request.coverage.known())))
  }

  #cancel(request: PendingRequest): void {
    this.#options.timers.clearTimeout(request.timer)
    this.#pending.delete(request)
  }
}
