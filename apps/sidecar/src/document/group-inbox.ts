/**
 * An envelope from the group, deduplicated by the receive path: announcements and state vectors
 * are for the sidecar, a sync request is answered by the replica, and an update is durable in the
 * replica before any page sees it.
 * @see docs/sidecar.md §4.6, §8
 */
import { decodeHealth, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import type { CapabilityExchange } from '../group/capability-exchange.ts'
import type { DocumentPresence } from '../presence/document-presence.ts'
import { keepOwnStates } from '../presence/presence-authors.ts'
import type { AuthorGate } from './author-gate.ts'
import type { DocumentRoles } from '../roles/doc-roles.ts'
import type { MemberId, Roster } from '../group/roster.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { DocReplica } from '../replica/replica.ts'
import { decodeExactStateVector } from '../replica/strict-yjs.ts'
import { DOC_KINDS } from './doc-kinds.ts'
import type { Pages } from './pages.ts'
import type { ChangeStore } from './ports.ts'
import type { ReplicaSync } from './replica-sync.ts'

export interface GroupInboxParts {
  readonly replica: DocReplica
  readonly sync: ReplicaSync
  readonly capabilities: CapabilityExchange
  readonly pages: Pages
  readonly store: Pick<ChangeStore, 'storing'>
  /** The document's presence mirror: a member's awareness is noted before the pages see it. */
  readonly mirror: Pick<DocumentPresence, 'seen'>
  /** A member's awareness stamped with who sent it (presence/sender-stamp.ts), re-framed for the pages. */
  readonly stamp?: (
    payload: Uint8Array,
    from: MemberId | undefined,
  ) => { payload: Uint8Array; frame: Uint8Array } | undefined
  /** A viewer's content is dropped here (its sync requests, presence and health still pass). */
  readonly roles: Pick<DocumentRoles, 'refuses' | 'isViewer' | 'reviewOnly'>
  readonly metrics: Metrics
  /** Who wrote what: what a member wrote under another account's client id is stripped here. */
  readonly authors: Pick<AuthorGate, 'admit' | 'health' | 'speaksFor'>
  /** False when the review entries a member's message writes exceed its rate (review/entry-rate.ts): dropped. */
  readonly reviewRate?: (source: string, payload: Uint8Array, from: MemberId | undefined) => boolean
}

/** What a document's group-sync did, summed over the sidecar for its metrics. */
export interface SyncStats {
  readonly answered: number
  readonly suppressed: number
  readonly askedBack: number
}

/** What the rest of the sidecar asks of a document's side of its group (`doc.group`). */
export interface GroupSide {
  /**
   * An envelope from the group, deduplicated by the receive path; `from` is its Signal sender,
   * `source` that sender's key (answer rule, per-asker limits).
   */
  receive: GroupInbox
  /** Sends the replica's `sync-request` to the document's group. */
  ask(): void
  /** Announces this sidecar's capabilities with `hello`, so every member announces back (at start). */
  greet(): void
  /** The group's listed members changed (or were read again): the roster, and who holds which author tag. */
  setMembers(members: readonly MemberId[]): void
  /** Content a member (`source`) sent did not arrive whole: ask the group again (bounded per member). */
  lost(source?: string): void
  /** Stops announcing `feature` (this machine cannot use it) and says so to the group. */
  withdraw(feature: number): void
  /** Does not announce `feature`, silently: its withdrawal was said before the document left memory. */
  keepWithdrawn(feature: number): void
  /** Announces `feature` again after a withdrawal (when this sidecar is configured to read it). */
  restore(feature: number): void
  /** What group sync answered, suppressed and asked back so far. */
  syncStats(): SyncStats
  /** True while its gap repair waits to ask the group (document/replica-sync.ts). */
  busy(): boolean
  /** What the group's members announced; the collection keeps it while the document is out of memory. */
  readonly roster: Roster
}

/**
 * Takes an envelope from the group; `from` is its Signal sender, `source` that sender's key. True
 * when its content was refused: a viewer's or a commenter's not permitted, or wholly another's.
 */
export type GroupInbox = (frame: Uint8Array, env: Envelope, from?: MemberId, source?: string) => boolean | undefined

/** The state vector a health payload carries, if it is well formed and carries one. */
function peerStateVector(payload: Uint8Array): Map<number, number> | undefined {
  try {
    const sv = decodeHealth(payload).stateVector
    return sv === undefined ? undefined : decodeExactStateVector(sv)
  } catch {
    return undefined // a page's liveness probe, or a field this version does not know
  }
}

export function createGroupInbox(p: GroupInboxParts): GroupInbox {
  const { replica, capabilities, pages, metrics } = p
  const { groupSync, gapRepair } = p.sync
  /** A member's presence: only the states under its own client ids, stamped with who sent it. */
  function awareness(frame: Uint8Array, env: Envelope, from: MemberId | undefined): void {
    const own = keepOwnStates(env.payload, (clientId) => p.authors.speaksFor(from, clientId))
    if (own === undefined) return void metrics.receivedDropped.inc({ reason: 'invalid-payload' })
    if (own.refused > 0) metrics.receivedDropped.inc({ reason: 'presence-not-author' }, own.refused)
    if (own.refused > 0 && own.kept === 0) return // no state of the sender's own left
    const mine = own.refused === 0 ? { payload: env.payload, frame } : { payload: own.payload, frame: undefined }
    // The pages see who sent it as Signal says, not only the name the other page picked.
    const stamped = p.stamp?.(mine.payload, from)
    p.mirror.seen(stamped?.payload ?? mine.payload)
    pages.toAll(stamped?.frame ?? mine.frame ?? encodeEnvelope({ ...env, payload: mine.payload }))
  }

  return (frame, env, from, source = '') => {
    if (from !== undefined) capabilities.roster.seen(from)
    if (env.kind === 'health') {
      // A member's state vector, when it sent one: the replica asks until it holds all of it.
      const sv = peerStateVector(env.payload)
      if (sv !== undefined) gapRepair.onPeerState(sv, source)
      // The role first: a viewer's announcement may name only ids under its own tag.
      p.authors.health(from, env.payload, p.roles.isViewer(from))
    }
    // Announcements are between sidecars; a bare probe still reaches the browsers.
    if (env.kind === 'health' && capabilities.onHealth(from, env.payload))
      return void metrics.announcements.inc({ direction: 'received' })
    if (env.kind === 'sync-request') {
      // The replica answers for this machine; its browsers hold nothing it lacks.
      const took = groupSync.onRequest(env.payload, source, `${env.senderId}/${env.messageId}`)
      if (took === false) return void metrics.receivedDropped.inc({ reason: 'invalid-payload' })
      const sv = decodeExactStateVector(env.payload)
      if (sv === undefined) return
      gapRepair.onPeerState(sv, source)
      // Stands in for this replica's quiet ask only when answered now, and asked by a member who
      // may write (a viewer could otherwise hush every member's ask after each change).
      if (took === 'taken' && !p.roles.isViewer(from)) gapRepair.onPeerAsk(sv)
      return
    }
    if (DOC_KINDS.has(env.kind)) {
      if (p.roles.refuses(from, env.kind)) return true
      const admitted = p.authors.admit(env.kind, env.payload, from)
      // A commenter's update, once only its own structs are left, must touch only the review map.
      const payload = admitted === undefined ? undefined : p.roles.reviewOnly(from, admitted)
      if (payload === undefined) return true
      // Over the member's rate is not a refusal of what they may write: dropped, never retracted.
      if (p.reviewRate?.(source, payload, from) === false)
        return void metrics.receivedDropped.inc({ reason: 'review-rate' })
      // Durable before it is considered applied and before any browser sees it.
      // A member's own edit comes as an update; a sync answer may carry anyone's: not theirs to own.
      const author = env.kind === 'update' ? (from?.number ?? from?.uuid ?? source) : undefined
      const origin = { via: 'member', author } as const
      const applied = p.store.storing(() => replica.apply(payload, origin))
      if (applied === undefined) return
      if (!applied) return void metrics.receivedDropped.inc({ reason: 'invalid-payload' })
      if (env.kind !== 'update') groupSync.onPeerResponse(payload)
      gapRepair.check()
      // Stripped of what was not the sender's: the pages get what the replica applied.
      if (payload !== env.payload) return void pages.toAll(encodeEnvelope({ ...env, payload }))
    }
    if (env.kind === 'awareness') return void awareness(frame, env, from)
    pages.toAll(frame)
    return undefined
  }
}
