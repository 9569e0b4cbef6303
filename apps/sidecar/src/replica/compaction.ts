/**
 * When to compact a document's update log into one state update. Like y-indexeddb (500 rows) and
 * automerge-repo (incremental bytes above snapshot bytes), both a row bound and a byte bound:
 * the log never holds more than `maxRows` rows nor more than `growthFactor` × the last compacted
 * state (plus `slackBytes`, so tiny documents are not rewritten on every edit).
 */

export interface CompactionPolicy {
  readonly maxRows: number
  readonly growthFactor: number
  readonly slackBytes: number
}

export const DEFAULT_COMPACTION: CompactionPolicy = { maxRows: 256, growthFactor: 2, slackBytes: 64 * 1024 }

/** The log as it stands: rows and bytes in the store, and the size of the last compacted state. */
export interface LogShape {
  readonly rows: number
  readonly bytes: number
  readonly baseBytes: number
}

export function shouldCompact(log: LogShape, policy: CompactionPolicy = DEFAULT_COMPACTION): boolean {
  if (log.rows <= 1) return false
  return log.rows >= policy.maxRows || log.bytes > policy.growthFactor * log.baseBytes + policy.slackBytes
}
