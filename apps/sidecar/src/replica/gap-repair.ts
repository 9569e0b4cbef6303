/**
 * Asks the group again when the replica may be missing something: a member whose identity failed
 * for one send, a sync exchange lost to an ambiguous send, a body lost to a kill. Two signs:
 * - a gap: Yjs keeps an update whose predecessors never arrived as pending structs. While one
 *   remains, the replica's `sync-request` goes out at most once per `intervalMs`.
 * - quiet after changes: a lost *last* update leaves no gap. Once the document has been quiet for
 *   `quietMs` (plus jitter) after it changed, the replica asks once. A request that changes nothing
 *   changes nothing in return, so this never ping-pongs.
 * - a loss: a message named content that could not be used (a missing or corrupt attachment).
 *   The replica asks one interval later, at most once per interval however many are lost.
 * Members answer only what the asker lacks, by state vector (§8.4).
 */
import type * as Y from 'yjs'

export interface GapRepairOptions {
  readonly doc: Y.Doc
  /** Sends the replica's sync-request to the group. */
  readonly ask: () => void
  readonly intervalMs: number
  readonly quietMs: number
  readonly random: () => number
}

export interface GapRepair {
  /** Called after every update applied from the group. */
  check(): void
  /** Called when something sent to the group did not arrive whole (a missing or corrupt attachment). */
  lost(): void
  /** Requests sent because of a gap, and after quiet. */
  readonly asked: number
  dispose(): void
}

/** True while the document holds structs or deletions it cannot integrate yet. */
export const hasGap = (doc: Y.Doc): boolean => doc.store.pendingStructs !== null || doc.store.pendingDs !== null

export function createGapRepair(o: GapRepairOptions): GapRepair {
  let timer: ReturnType<typeof setTimeout> | undefined
  let quiet: ReturnType<typeof setTimeout> | undefined
  let lostTimer: ReturnType<typeof setTimeout> | undefined
  let asked = 0
  const onChange = (): void => {
    if (quiet !== undefined) clearTimeout(quiet)
    quiet = setTimeout(() => {
      quiet = undefined
      asked += 1
      o.ask()
    }, o.quietMs * (1 + o.random()))
  }
  o.doc.on('update', onChange)
  const tick = (): void => {
    timer = undefined
    if (!hasGap(o.doc)) return
    asked += 1
    o.ask()
    timer = setTimeout(tick, o.intervalMs)
  }
  return {
    check() {
      // The first ask waits one interval: the missing piece is usually just behind (reordering).
      if (timer === undefined && hasGap(o.doc)) timer = setTimeout(tick, o.intervalMs)
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
      if (timer !== undefined) clearTimeout(timer)
      if (quiet !== undefined) clearTimeout(quiet)
      if (lostTimer !== undefined) clearTimeout(lostTimer)
      lostTimer = undefined
      timer = undefined
      quiet = undefined
    },
  }
}
