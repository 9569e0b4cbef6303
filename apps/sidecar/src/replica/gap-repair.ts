/**
 * Asks the group again, with backoff, until the replica holds everything a member is known to
 * hold: a member whose identity failed for one send, a sync exchange lost to an ambiguous send, a
 * body lost to a kill, a chunked message spoiled on the way. The replica is behind while
 * - it has a gap: Yjs keeps an update whose predecessors never arrived as pending structs. The
 *   replica's `sync-request` goes out after `intervalMs`, then after twice that, up to
 *   `maxIntervalMs`. Nothing a member sends resets the delay, not even the gap's own missing
 *   pieces (a member could drip them one an interval, or close a gap and open the next): it goes
 *   back to `intervalMs` only for a gap seen `maxIntervalMs` or more after the last gap ask; or
 * - a member's state vector (from its `sync-request` or `health`) holds clocks the replica lacks,
 *   so a side that received nothing at all still learns it is behind. What such claims may cost
 *   is counted per member (claims.ts): one ask one interval after the claim (at once when the
 *   member's request showed it, the ask-back), then at most one per `maxIntervalMs` for that
 *   member, longer after each claim that repair showed false.
 *
 * Also, once the document has been quiet for `quietMs` (plus jitter) after it changed, the replica
 * asks once (a lost *last* update leaves no gap), and it announces its state vector in a `health`
 * envelope at most every `announceMs` while it keeps changing. Every member's document changes
 * with every edit, so in a group of N each would ask after each burst: N requests and their
 * answers. A member's request that holds nothing this replica lacks stands in for its own quiet
 * ask (`onPeerAsk`): the answers go to the whole group and carry whatever the asker lacks, so all
 * this replica could lack too. The random wait spreads the members out; the first to ask speaks
 * for the rest.
 * A loss (a message named content that could not be used: a missing or corrupt attachment) makes
 * the replica ask one interval later, at most once per interval however many are lost and once
 * per `maxIntervalMs` for one member's losses; a request
 * Signal refused is asked again one interval later, backing off while refusals continue.
 * Members answer only what the asker lacks, by state vector (§8.4).
 */
import * as Y from 'yjs'
import { createClaimBook, type Claimants } from './claims.ts'

export interface GapRepairOptions {
  readonly doc: Y.Doc
  /** Sends the replica's sync-request to the group. */
  readonly ask: () => void
  /** Sends a `health` envelope carrying the replica's state vector to the group. */
  readonly announce: () => void
  readonly intervalMs: number
  /** The gap's longest delay, and the least time between two asks on one member's claims. */
  readonly maxIntervalMs: number
  /** The longest time between two asks on one member's claims, after claims shown false. */
  readonly maxClaimSpacingMs: number
  readonly quietMs: number
  readonly announceMs: number
  readonly targetTtlMs: number
  readonly now: () => number
  readonly random: () => number
  /** The members' claims and spacings, kept across the document's stays in memory (claims.ts). */
  readonly claimants?: Claimants | undefined
}

export interface GapRepair {
  /** Called after every update applied from the group. */
  check(): void
  /** A member's state vector was seen (`source`: the member's key): ask until the replica holds all of it. */
  onPeerState(stateVector: ReadonlyMap<number, number>, source?: string): void
  /**
   * A member asked the group with `stateVector`. When it holds nothing this replica lacks, the
   * answers it gets carry everything this replica could lack, so the quiet ask waiting is dropped.
   */
  onPeerAsk(stateVector: ReadonlyMap<number, number>): void
  /** Quiet asks dropped because a member's request stood in for them. */
  readonly quietAsksCovered: number
  /**
   * A member's request showed it ahead (the answer rule's ask-back): asks at once when a member's
   * claims may cost an ask now; false when none may (the request is then not asked back).
   */
  askBack(): boolean
  /**
   * Called when something a member (`source`) sent did not arrive whole (a missing or corrupt
   * attachment): asked about one interval later, and a member's losses at most once per
   * `maxIntervalMs` (a member could send a broken attachment every interval).
   */
  lost(source?: string): void
  /**
   * Signal refused one of the replica's requests (definitely not sent): asked again one interval
   * later, the delay doubling up to `maxIntervalMs` while refusals follow each other.
   */
  refused(): void
  /** Requests sent: behind, asked back, after quiet, a loss or a refusal. */
  readonly asked: number
  /** A member's current least time between two asks on its claims (undefined: none seen). */
  claimSpacingOf(source: string): number | undefined
  /** True while an ask waits (a gap, a claim, the quiet ask, a loss or a refusal): not to be dropped. */
  busy(): boolean
  dispose(): void
}

/** True while the document holds structs or deletions it cannot integrate yet. */
export const hasGap = (doc: Y.Doc): boolean => doc.store.pendingStructs !== null || doc.store.pendingDs !== null

/** True when `doc` holds every clock of `stateVector` (the member is not ahead of it anywhere). */
function heldBy(stateVector: ReadonlyMap<number, number>, doc: Y.Doc): boolean {
  for (const [client, clock] of stateVector) if (clock > Y.getState(doc.store, client)) return false
  return true
}

// Members whose last loss is remembered; beyond, the least recent is forgotten.
const MAX_LOSERS = 256

export function createGapRepair(o: GapRepairOptions): GapRepair {
  let timer: ReturnType<typeof setTimeout> | undefined
  let quiet: ReturnType<typeof setTimeout> | undefined
  let announceTimer: ReturnType<typeof setTimeout> | undefined
  let changedSinceAnnounce = false
  let lostTimer: ReturnType<typeof setTimeout> | undefined
  // When each member's last loss was asked about (least recent first).
  const lostAt = new Map<string, number>()
  let refusedTimer: ReturnType<typeof setTimeout> | undefined
  let refusedDelay = o.intervalMs
  let lastRefusedAt = Number.NEGATIVE_INFINITY
  let disposed = false
  let asked = 0
  let quietAsksCovered = 0
  const jittered = (ms: number): number => ms * (1 + o.random() / 4)
  const claims = createClaimBook({
    doc: o.doc,
    firstAskMs: () => jittered(o.intervalMs),
    baseSpacingMs: o.maxIntervalMs,
    maxSpacingMs: o.maxClaimSpacingMs,
    ttlMs: o.targetTtlMs,
    members: o.claimants,
  })
  // The gap's next ask (undefined: no gap seen), its delay, and when the gap was last asked about.
  let gapAt: number | undefined
  let delay = o.intervalMs
  let lastGapAsk = Number.NEGATIVE_INFINITY
  // The first ask after a reset keeps the interval (asks at 1, 2, 4, 8 intervals), as before.
  let afterReset = true

  const send = (): void => {
    asked += 1
    o.ask()
  }
  const schedule = (): void => {
    const now = o.now()
    if (!hasGap(o.doc)) gapAt = undefined
    else if (gapAt === undefined) {
      // A gap after a quiet spell is asked about at once; one a member keeps opening, at the doubled delay.
      if (now - lastGapAsk >= o.maxIntervalMs) [delay, afterReset] = [o.intervalMs, true]
      gapAt = now + jittered(delay)
    }
    const due = Math.min(gapAt ?? Infinity, claims.nextDue(now) ?? Infinity)
    if (timer !== undefined) clearTimeout(timer)
    timer = due === Infinity ? undefined : setTimeout(tick, Math.max(0, due - now))
  }
  const tick = (): void => {
    timer = undefined
    const now = o.now()
    let ask = false
    if (gapAt !== undefined && gapAt <= now && hasGap(o.doc)) {
      if (!afterReset) delay = Math.min(o.maxIntervalMs, delay * 2)
      afterReset = false
      lastGapAsk = now
      gapAt = now + jittered(delay)
      ask = true
    }
    if (claims.take(now)) ask = true
    if (ask) send()
    schedule()
  }

  const announce = (): void => {
    announceTimer = undefined
    if (!changedSinceAnnounce) return
    changedSinceAnnounce = false
    o.announce()
    announceTimer = setTimeout(announce, o.announceMs)
  }
  const onChange = (): void => {
    if (quiet !== undefined) clearTimeout(quiet)
    quiet = setTimeout(
      () => {
        quiet = undefined
        send()
      },
      o.quietMs * (1 + o.random()),
    )
    changedSinceAnnounce = true
    announceTimer ??= setTimeout(announce, o.announceMs * (1 + o.random() / 4))
  }
  o.doc.on('update', onChange)
  if ((o.claimants?.size ?? 0) > 0) schedule() // claims kept from its last stay in memory come due

  return {
    check() {
      // The first ask waits one interval: the missing piece is usually just behind (reordering).
      schedule()
    },
    onPeerState(stateVector, source = '') {
      claims.note(stateVector, source, o.now())
      schedule()
    },
    onPeerAsk(stateVector) {
      if (quiet === undefined || !heldBy(stateVector, o.doc)) return
      clearTimeout(quiet)
      quiet = undefined
      quietAsksCovered += 1
    },
    askBack() {
      if (!claims.take(o.now(), true)) return false
      send()
      schedule()
      return true
    },
    lost(source = '') {
      const now = o.now()
      const last = lostAt.get(source)
      if (last !== undefined && now - last < o.maxIntervalMs) return
      lostAt.delete(source)
      lostAt.set(source, now)
      if (lostAt.size > MAX_LOSERS) lostAt.delete(lostAt.keys().next().value as string)
      lostTimer ??= setTimeout(() => {
        lostTimer = undefined
        send()
      }, o.intervalMs)
    },
    refused() {
      if (disposed) return
      const now = o.now()
      // Refusals in a row back off; a lone one (long after the last) is asked again soon.
      refusedDelay =
        now - lastRefusedAt > 2 * o.maxIntervalMs ? o.intervalMs : Math.min(o.maxIntervalMs, refusedDelay * 2)
      lastRefusedAt = now
      refusedTimer ??= setTimeout(() => {
        refusedTimer = undefined
        send()
      }, refusedDelay)
    },
    get asked() {
      return asked
    },
    get quietAsksCovered() {
      return quietAsksCovered
    },
    claimSpacingOf: (source) => claims.spacingOf(source),
    // The health announcement is not counted: a member's own announcements tell the group its state.
    busy: () => [timer, quiet, lostTimer, refusedTimer].some((t) => t !== undefined),
    dispose() {
      disposed = true
      o.doc.off('update', onChange)
      for (const t of [timer, quiet, announceTimer, lostTimer, refusedTimer]) if (t !== undefined) clearTimeout(t)
      lostTimer = undefined
      refusedTimer = undefined
      timer = undefined
      quiet = undefined
      announceTimer = undefined
    },
  }
}
