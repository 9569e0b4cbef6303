/**
 * `@e2e-col/sidecar/internals`: the sidecar's edge modules, for the fuzz targets and the protocol and history
 * bench that drive them directly (and the store inspection the scale bench reads). Not an API for programs: those start a whole sidecar.
 */
export { createSession, type Session } from './browser/session.ts'
export { BROWSER_KINDS } from './browser/kinds.ts'
export { createMetrics, type Metrics } from './ops/metrics.ts'
export { createIngest } from './receive/ingest.ts'
export { createTokenBucket } from './send/token-bucket.ts'
export { NODE_CODECS } from './node-codecs.ts'
export { openReplicaStore } from './replica/store.ts'
export { openSidecarStore } from './phases/store.ts'
export { loadReplica } from './replica/replica.ts'
export { inspectDocument } from './cli/inspect.ts'
export type { CompactionPolicy } from './replica/compaction.ts'
export { createDocHistory, type HistoryPolicy } from './history/doc-history.ts'
export { DEFAULT_RETENTION } from './history/retention.ts'
export { restoreChange } from './history/restore.ts'
export { createLogger } from './ops/logger.ts'
export { createAuthorBook } from './authorship/author-book.ts'
export { authorTagOfAccount } from './authorship/author-tag.ts'
export { createAuthorGate } from './document/author-gate.ts'
