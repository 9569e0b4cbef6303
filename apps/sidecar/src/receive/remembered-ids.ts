/**
 * The receive path's memory of delivered message ids, kept across restarts: first sightings are
 * written to the store in one transaction per short spell (not one synced write per envelope), and
 * at start the newest rows fill the dedup windows again. A graceful stop writes what is waiting; a
 * killed process can forget at most the last spell's ids (`flushMs`).
 * @see docs/reliability.md "Deduplication across restarts"
 */
import type { Timers } from '@e2e-col/sync'
import type { ReceivedId, ReceivedIdTable } from '../replica/received-ids.ts'

export interface RememberedIdsOptions {
  readonly table: Pick<ReceivedIdTable, 'record' | 'recent' | 'prune'>
  readonly timers: Timers
  /** Longest a first sighting waits before it is written. */
  readonly flushMs: number
  /** Sightings waiting at most; reaching it writes at once. */
  readonly maxWaiting: number
  /** An id is remembered this long (the dedup window's time to live). */
  readonly ttlMs: number
  /** Rows kept at most (the newest). */
  readonly maxRows: number
  /** A write failed: the ids stay in memory only (a restart may deliver their copies again). */
  readonly onError: (error: unknown) => void
}

export interface RememberedIds {
  /** The ids to fill the windows with at start, oldest first. */
  recent(): ReceivedId[]
  /** A first sighting, written within `flushMs`. */
  record(id: ReceivedId): void
  /** Writes what is waiting now and stops the timer (at stop). */
  flush(): void
}

export function createRememberedIds(o: RememberedIdsOptions): RememberedIds {
  let waiting: ReceivedId[] = []
  let timer: unknown
  let written = 0
  const flush = (): void => {
    if (timer !== undefined) o.timers.clearTimeout(timer)
    timer = undefined
    if (waiting.length === 0) return
    const ids = waiting
    waiting = []
    try {
      o.table.record(ids)
      written += ids.length
      // Pruning scans the age index: once per maxRows/10 writes, not per spell.
      if (written >= Math.max(1, Math.floor(o.maxRows / 10))) {
        written = 0
        o.table.prune(o.timers.now() - o.ttlMs, o.maxRows)
      }
    } catch (error) {
      o.onError(error)
    }
  }
  return {
    recent: () => {
      o.table.prune(o.timers.now() - o.ttlMs, o.maxRows)
      return o.table.recent(o.timers.now() - o.ttlMs, o.maxRows)
    },
    record(id) {
      waiting.push(id)
      if (waiting.length >= o.maxWaiting) return flush()
      timer ??= o.timers.setTimeout(flush, o.flushMs)
    },
    flush,
  }
}
