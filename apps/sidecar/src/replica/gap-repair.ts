/**
 * Asks the group again, with backoff, until the replica holds everything a member is known to
 * hold: a member whose identity failed for one send, a sync exchange lost to an ambiguous send, a
 * body lost to a kill, a chunked message spoiled on the way. The replica is behind while
 * - it has a gap: Yjs keeps an update whose predecessors never arrived as pending structs; or
 * - a member's state vector (from its `sync-request` or `health`) holds clocks the replica lacks,
 *   so a side that received nothing at all still learns it is behind.
 * While behind, the replica's `sync-request` goes out after `intervalMs`, then after twice that,
 * up to `maxIntervalMs`. Only progress on what is lacking resets the delay (fewer claimed clocks
 * missing, a gap's missing pieces arriving), never an unrelated change: a member that sends an
 * edit with each false claim cannot keep the replica asking every interval. A clock nobody
 * delivers within `targetTtlMs` is given up, and one member's claims track at most
 * `MAX_CLAIMS_PER_SENDER` clients (a member's claim cannot make this sidecar ask forever).
 *
 * Also, once the document has been quiet for `quietMs` (plus jitter) after it changed, the replica
 * asks once (a lost *last* update leaves no gap), and it announces its state vector in a `health`
 * envelope at most every `announceMs` while it keeps changing.
 * A loss (a message named content that could not be used: a missing or corrupt attachment) makes
 * the replica ask one interval later, at most once per interval however many are lost.
 * Members answer only what the asker lacks, by state vector (§8.4).
 */
import * as Y from 'yjs'

export interface GapRepairOptions {
  readonly doc: Y.Doc
  /** Sends the replica's sync-request to the group. */
  readonly ask: () => void
  /** Sends a `health` envelope carrying the replica's state vector to the group. */
  readonly announce: () => void
  readonly intervalMs: number
  readonly maxIntervalMs: number
  readonly quietMs: number
  readonly announceMs: number
  readonly targetTtlMs: number
  readonly now: () => number
  readonly random: () => number
}

export interface GapRepair {
  /** Called after every update applied from the group. */
  check(): void
  /** A member's state vector was seen (`source`: the member's key): ask until the replica holds all of it. */
  onPeerState(stateVector: ReadonlyMap<number, number>, source?: string): void
  /** Called when something sent to the group did not arrive whole (a missing or corrupt attachment). */
  lost(): void
  /** Requests sent because the replica was behind, after quiet, and after a loss. */
  readonly asked: number
  dispose(): void
}

/** True while the document holds structs or deletions it cannot integrate yet. */
export const hasGap = (doc: Y.Doc): boolean => doc.store.pendingStructs !== null || doc.store.pendingDs !== null

// Clients tracked in the target at once (a state vector lists one per editing session), and of
// those, how many one member's claims may add.
const MAX_TARGET_CLIENTS = 4096
const MAX_CLAIMS_PER_SENDER = 256

export function createGapRepair(o: GapRepairOptions): GapRepair {
  let timer: ReturnType<typeof setTimeout> | undefined
  let quiet: ReturnType<typeof setTimeout> | undefined
  let announceTimer: ReturnType<typeof setTimeout> | undefined
  let changedSinceAnnounce = false
  let lostTimer: ReturnType<typeof setTimeout> | undefined
  let asked = 0
  let delay = o.intervalMs
  // client → [clock a member holds, when first seen, who claimed it first]
  const target = new Map<number, { clock: number; at: number; by: string }>()
  const claims = new Map<string, number>()
  let lastLacking = Number.POSITIVE_INFINITY
  const untrack = (client: number, by: string): void => {
    target.delete(client)
    const n = (claims.get(by) ?? 1) - 1
    if (n <= 0) claims.delete(by)
    else claims.set(by, n)
  }

  const lacksTarget = (): boolean => {
    if (target.size === 0) return false
    const now = o.now()
    for (const [client, t] of target) {
      if (Y.getState(o.doc.store, client) >= t.clock || now - t.at > o.targetTtlMs) untrack(client, t.by)
    }
    return target.size > 0
  }
  const behind = (): boolean => hasGap(o.doc) || lacksTarget()
  /** How much is still missing: claimed clocks not held, and what a gap waits for. */
  const lacking = (): number => {
    const { store } = o.doc
    let n = store.pendingDs === null ? 0 : 1
    for (const [client, t] of target) n += Math.max(0, t.clock - Y.getState(store, client))
    for (const [client, clock] of store.pendingStructs?.missing ?? [])
      n += Math.max(1, clock - Y.getState(store, client))
    return n
  }

  const schedule = (): void => {
    if (timer !== undefined || !behind()) return
    timer = setTimeout(tick, delay * (1 + o.random() / 4))
  }
  const tick = (): void => {
    timer = undefined
    if (!behind()) {
      delay = o.intervalMs
      lastLacking = Number.POSITIVE_INFINITY
      return
    }
    const now = lacking()
    delay = now < lastLacking ? o.intervalMs : Math.min(o.maxIntervalMs, delay * 2)
    lastLacking = now
    asked += 1
    o.ask()
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
        asked += 1
        o.ask()
      },
      o.quietMs * (1 + o.random()),
    )
    changedSinceAnnounce = true
    announceTimer ??= setTimeout(announce, o.announceMs * (1 + o.random() / 4))
  }
  o.doc.on('update', onChange)

  return {
    check() {
      // The first ask waits one interval: the missing piece is usually just behind (reordering).
      schedule()
    },
    onPeerState(stateVector, source = '') {
      const now = o.now()
      for (const [client, clock] of stateVector) {
        if (clock <= Y.getState(o.doc.store, client)) continue
        const t = target.get(client)
        if (t !== undefined) {
          if (t.clock < clock) t.clock = clock
          continue
        }
        const mine = claims.get(source) ?? 0
        if (target.size >= MAX_TARGET_CLIENTS || mine >= MAX_CLAIMS_PER_SENDER) break
        claims.set(source, mine + 1)
        target.set(client, { clock, at: now, by: source })
      }
      schedule()
    },
    lost() {
      lostTimer ??= setTimeout(() => {
        lostTimer = undefined
        asked += 1
        o.ask()
      }, o.intervalMs)
    },
    get asked() {
      return asked
    },
    dispose() {
      o.doc.off('update', onChange)
      for (const t of [timer, quiet, announceTimer, lostTimer]) if (t !== undefined) clearTimeout(t)
      lostTimer = undefined
      timer = undefined
      quiet = undefined
      announceTimer = undefined
    },
  }
}
