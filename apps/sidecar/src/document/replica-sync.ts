/**
 * How one document's replica keeps up with its group: it answers members' sync requests under the
 * answer rule (group-sync.ts), and asks the group again while it is behind (a gap, or a member's
 * state vector ahead), with backoff; once after changes went quiet; and it announces its state
 * vector now and then (gap-repair.ts). The timings follow from the configured sync delays and pace.
 * @see docs/sidecar.md §8
 */
import { encodeHealth, leastChunkData } from '@e2e-col/protocol'
import type { Clock } from '../clock.ts'
import { fallbackMs } from '../replica/answer-rule.ts'
import { createGapRepair, type GapRepair } from '../replica/gap-repair.ts'
import { createClaimants, type Claimants } from '../replica/claims.ts'
import { createAskerBook, createGroupSync, type AskerBook, type GroupSync } from '../replica/group-sync.ts'
import type { DocReplica } from '../replica/replica.ts'
import type { DocumentLimits } from './ports.ts'

// Repair asks at least this often while behind (and a member's claims cost at most one ask per
// this, up to the longest spacing after claims shown false); a clock nobody delivers is given up
// after the TTL.
const REPAIR_MAX_INTERVAL_MS = 60_000
const REPAIR_MAX_CLAIM_SPACING_MS = 600_000
const REPAIR_TARGET_TTL_MS = 600_000

/**
 * What bounds each member's sync, kept by the collection across a document's stays in memory:
 * when each asker's next request is answered (group-sync.ts), and each member's claims and their
 * spacing (claims.ts).
 */
export interface SyncBounds {
  readonly askers: AskerBook
  readonly claimants: Claimants
}

export const createSyncBounds = (): SyncBounds => ({ askers: createAskerBook(), claimants: createClaimants() })

export interface ReplicaSyncOptions {
  readonly limits: DocumentLimits
  readonly clock: Clock
  /** Sends one of the replica's own envelopes to the group; `refused` when Signal refuses it. */
  readonly toGroup: (
    kind: 'sync-request' | 'sync-response' | 'health',
    payload: Uint8Array,
    refused?: () => void,
  ) => void
  /** This member's rank among those who may answer a request. */
  readonly rank: (requestId: string, asker: string) => number
  /** True while a large answer would go as one attachment (this sidecar and every member read them). */
  readonly attachments?: () => boolean
  /** What bounds each member's sync, kept across the document's stays in memory. */
  readonly bounds?: SyncBounds
}

export interface ReplicaSync {
  readonly groupSync: GroupSync
  readonly gapRepair: GapRepair
  /** Sends the replica's sync-request to the group. */
  ask(): void
  dispose(): void
}

export function createReplicaSync(replica: DocReplica, o: ReplicaSyncOptions): ReplicaSync {
  const { limits, clock } = o
  // A refused request is asked again (claims are asked for once a minute: it must not wait that).
  const ask = (): void => o.toGroup('sync-request', replica.stateVector(), () => gapRepair.refused())
  const fallback = {
    baseMs: Math.max(2000, 4 * limits.syncDelayMs.max),
    sendIntervalMs: 1000 / limits.sendsPerSecond,
    bodyFrameBytes: Math.max(1, leastChunkData(limits.maxBodyBytes)),
  }
  const groupSync = createGroupSync(replica, {
    minDelayMs: limits.syncDelayMs.min,
    maxDelayMs: limits.syncDelayMs.max,
    random: clock.rng,
    timers: clock,
    answer: (payload) => o.toGroup('sync-response', payload),
    // Through gap repair, so a member's requests cost no more than its other claims.
    askBack: () => gapRepair.askBack(),
    rank: o.rank,
    fallbackMs: (answerBytes) => fallbackMs(answerBytes, fallback, o.attachments?.() ?? false),
    askers: o.bounds?.askers,
  })
  const gapRepair = createGapRepair({
    doc: replica.doc,
    ask,
    announce: () => o.toGroup('health', encodeHealth({ stateVector: replica.stateVector() })),
    intervalMs: Math.max(1000, 4 * limits.syncDelayMs.max),
    maxIntervalMs: REPAIR_MAX_INTERVAL_MS,
    maxClaimSpacingMs: REPAIR_MAX_CLAIM_SPACING_MS,
    quietMs: Math.max(2000, 20 * limits.syncDelayMs.max),
    announceMs: limits.healthIntervalMs,
    targetTtlMs: REPAIR_TARGET_TTL_MS,
    now: clock.now,
    random: clock.rng,
    claimants: o.bounds?.claimants,
  })
  return {
    groupSync,
    gapRepair,
    ask,
    dispose() {
      groupSync.dispose()
      gapRepair.dispose()
    },
  }
}
