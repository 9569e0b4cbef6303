/**
 * One served document: its browser sessions, replica, send queue, group sync and gap repair, and
 * the two ways in: an envelope from a local browser and one from the group. Everything that
 * changes the document is durable in the replica before it is forwarded, queued or delivered; a
 * browser's change is acknowledged once it is durable in the replica and the outbox ("saved by your
 * sidecar"), and from then on the sidecar owns its delivery (delivery.ts tells the pages how far it got).
 * The document owns its sessions: they join with {@link Document.attach} and leave when their
 * socket closes, so a document can be added or removed while the sidecar runs.
 * @see docs/sidecar.md §4.3–§4.7, §8
 */
import {
  CAPABILITY,
  decodeEnvelope,
  decodeHealth,
  encodeEnvelope,
  encodeHealth,
  FLAGS,
  type Envelope,
  type Kind,
} from '@e2e-col/protocol'
import type { Session } from './browser/session.ts'
import type { Clock } from './clock.ts'
import type { SidecarConfig } from './config.ts'
import type { Logger } from './ops/logger.ts'
import type { Metrics } from './ops/metrics.ts'
import { createCapabilityExchange, type CapabilityExchange } from './group/capability-exchange.ts'
import type { MemberId } from './group/roster.ts'
import { createGapRepair, type GapRepair } from './replica/gap-repair.ts'
import { createDocumentPresence } from './presence/document-presence.ts'
import { fallbackMs } from './replica/answer-rule.ts'
import { createGroupSync, type GroupSync } from './replica/group-sync.ts'
import type { DocReplica } from './replica/replica.ts'
import { decodeExactStateVector } from './replica/strict-yjs.ts'
import type { ReplicaStore } from './replica/store.ts'
import { attachmentSend, type AttachmentSend } from './send/attachment-send.ts'
import { needsChunks } from './send/deflate-frame.ts'
import { createDelivery, type Delivery } from './send/delivery.ts'
import { mergeBacklog } from './send/merge-backlog.ts'
import { createSendQueue, type QueuedEnvelope, type SendOwner, type SendQueue } from './send/queue.ts'
import type { Reachability } from './send/reachability.ts'
import { createTokenBucket } from './send/token-bucket.ts'
import type { SignalBackend } from '@e2e-col/signal-cli'

/** What every document of one sidecar shares (the collection in documents.ts provides it). */
export interface DocumentContext {
  readonly config: SidecarConfig
  readonly backend: SignalBackend
  /** Whether Signal takes sends now: one state for every document's queue. */
  readonly reach: Reachability
  readonly clock: Clock
  readonly store: ReplicaStore
  readonly sidecarId: string
  /** This sidecar's Signal account, so its own devices are not counted as members. */
  readonly self: MemberId
  /** The CAPABILITY bits this sidecar uses and announces. */
  readonly features: number
  /** Takes one of the account's attachment uploads (Signal's attachmentCreate limit is per account). */
  takeUpload(): boolean
  readonly metrics: Metrics
  readonly logger: Logger
  /** Records an id this sidecar sends (so Signal's copy is dropped); true when already recorded. */
  markSent(docId: string, senderId: string, messageId: string): boolean
  /** This member's rank among those who may answer a group request (replica/answer-rule.ts). */
  answerRank(groupId: string, requestId: string, asker: string): number
  /** True once the sidecar stops: nothing more is sent. */
  stopped(): boolean
  /** Runs a step that touches the store; a store failure stops the sidecar (undefined then). */
  storing<T>(fn: () => T): T | undefined
  /** Remembers a send's ids durably before its first body goes out (§8.5). @throws on a store failure */
  rememberSent(docId: string, ids: readonly string[]): void
  /** Deflates a frame that needs more than one body, when compression is on. */
  readonly deflate: ((frame: Uint8Array) => Promise<Uint8Array>) | undefined
  /** The next batch sequence number and the next own-envelope sequence number (one sender id per sidecar). */
  nextBatchSeq(): number
  nextOwnSeq(): number
}

export interface Document {
  readonly docId: string
  readonly groupId: string
  readonly replica: DocReplica
  readonly queue: SendQueue
  readonly groupSync: GroupSync
  readonly gapRepair: GapRepair
  /** What the group's members read, and this sidecar's announcements (contract §4.10). */
  readonly capabilities: CapabilityExchange
  /** What the pages of this document are told about their changes. */
  readonly delivery: Delivery
  /** Browser sessions attached now. */
  readonly sessionCount: number
  /** Attaches a browser session; it stays until `detach` (its socket closed) or `close`. */
  attach(session: Session): void
  detach(session: Session): void
  /** An envelope a local browser sent (already checked by its session). */
  fromBrowser(session: Session, env: Envelope, frame: Uint8Array): void
  /**
   * An envelope from the group, deduplicated by the receive path; `from` is its Signal sender,
   * `source` that sender's key (answer rule, per-asker limits).
   */
  fromGroup(frame: Uint8Array, env: Envelope, from?: MemberId, source?: string): void
  /** Sends the replica's `sync-request` to the document's group. */
  askGroup(): void
  /** Queues the changes a previous run accepted and Signal never took, merged (once, when started). */
  resumeKept(): void
  /** Signal went away or came back: a backlog is merged, the group asked again on the way back, the pages told. */
  reachChanged(state: Reachability['state']): void
  closeSockets(code: number, reason: string): void
  /** Stops the queue and timers, and closes every socket with `code`. */
  close(code: number, reason: string): void
}

/** True for a health payload that announces capabilities or asks members to (§3.12). */
function announces(payload: Uint8Array): boolean {
  try {
    const h = decodeHealth(payload)
    return h.capabilities !== undefined || h.hello === true
  } catch {
    return false
  }
}

/** Kinds whose payload is a Yjs update and so feeds the replica. */
const DOC_KINDS: ReadonlySet<Kind> = new Set<Kind>(['update', 'sync-response', 'snapshot'])
const NO_OWNER: SendOwner = { ack: () => {}, reject: () => {} }
// Repair asks at least this often while behind, and gives up a clock nobody delivers after the TTL.
const REPAIR_MAX_INTERVAL_MS = 60_000
const REPAIR_TARGET_TTL_MS = 600_000
// While Signal is away, a backlog longer than this is merged into one update (it stays short).
const MERGE_AT = 16

/** The state vector a health payload carries, if it is well formed and carries one. */
function peerStateVector(payload: Uint8Array): Map<number, number> | undefined {
  try {
    const sv = decodeHealth(payload).stateVector
    return sv === undefined ? undefined : decodeExactStateVector(sv)
  } catch {
    return undefined // a page's liveness probe, or a field this version does not know
  }
}

export function createDocument(c: DocumentContext, docId: string, groupId: string, replica: DocReplica): Document {
  const { config, clock, store, storing, metrics, logger } = c
  const sessions = new Set<Session>()
  const closeSockets = (code: number, reason: string): void => {
    for (const s of sessions) s.close(code, reason)
  }
  const queue = createSendQueue({
    groupId,
    backend: c.backend,
    maxBodyBytes: config.maxBodyBytes,
    maxQueueBytes: config.send.maxQueueBytes,
    bucket: createTokenBucket({
      ratePerSecond: config.send.sendsPerSecond,
      burst: config.send.burst,
      now: clock.now(),
    }),
    minIntervalMs: 1000 / config.send.sendsPerSecond,
    ...(c.deflate === undefined ? {} : { shrink: (frame: Uint8Array) => compress(frame) }),
    attachment: (frame) => asAttachment(frame),
    retry: { attempts: config.send.attempts, baseMs: config.send.retryBaseMs, maxMs: config.send.retryMaxMs },
    now: clock.now,
    sleep: clock.sleep,
    rng: clock.rng,
    newBatchHeader: () => ({ docId, senderId: c.sidecarId, messageId: clock.newMessageId(), seq: c.nextBatchSeq() }),
    reach: c.reach,
    beforeSend: (ids) => c.rememberSent(docId, ids),
    // Definitely refused: the change stays in the replica (and the pages) and reaches the group
    // with the next sync exchange; it is not queued again (docs/sidecar.md §4.3).
    onUnsent: (ids) => {
      storing(() => {
        store.outbox.remove(docId, ids)
        store.sentIds.forget(docId, ids)
      })
      delivery.changed()
    },
    metrics,
    logger,
  })

  const delivery = createDelivery({
    docId,
    sidecarId: c.sidecarId,
    sessions,
    reach: c.reach,
    now: clock.now,
    newMessageId: clock.newMessageId,
    unsent: () => storing(() => store.outbox.count(docId)) ?? 0,
    forget: (ids) => void storing(() => store.outbox.remove(docId, ids)),
  })

  const capabilities = createCapabilityExchange({
    self: c.self,
    features: c.features,
    send: (payload) => {
      metrics.announcements.inc({ direction: 'sent' })
      toGroup('health', payload)
    },
    answerDelayMs: { min: 200, max: 1500 },
    random: clock.rng,
  })

  async function compress(frame: Uint8Array): Promise<Uint8Array> {
    // Only when every member reads it: an older sidecar drops deflated envelopes.
    if (
      c.deflate === undefined ||
      (c.features & CAPABILITY.deflate) === 0 ||
      !capabilities.roster.allRead(CAPABILITY.deflate)
    )
      return frame
    return c.deflate(frame)
  }

  /** The frame as one attachment send, when it is large and every member reads attachments. */
  function asAttachment(frame: Uint8Array): AttachmentSend | undefined {
    if (
      (c.features & CAPABILITY.attachments) === 0 ||
      frame.byteLength < config.attachments.minBytes ||
      !needsChunks(frame, config.maxBodyBytes)
    )
      return undefined
    const needs = CAPABILITY.attachments | (((frame[4] ?? 0) & FLAGS.deflated) === 0 ? 0 : CAPABILITY.deflate)
    if (!capabilities.roster.allRead(needs) || !c.takeUpload()) return undefined
    try {
      return attachmentSend(frame)
    } catch {
      return undefined // a kind never carried as an attachment
    }
  }

  /** An envelope of the sidecar's own (sync answers and requests), from its own sender id. */
  const ownEnvelope = (kind: Kind, payload: Uint8Array): Envelope => ({
    kind,
    flags: 0,
    docId,
    senderId: c.sidecarId,
    messageId: clock.newMessageId(),
    seq: c.nextOwnSeq(),
    payload,
  })
  function toGroup(kind: Kind, payload: Uint8Array): void {
    if (c.stopped()) return
    const env = ownEnvelope(kind, payload)
    metrics.replicaMessages.inc({ kind })
    c.markSent(docId, env.senderId, env.messageId)
    if (!queue.enqueue({ frame: encodeEnvelope(env), messageId: env.messageId, owner: NO_OWNER }))
      logger.warn({ kind }, 'send queue full; dropped a sync message of the replica')
  }
  const ask = (): void => toGroup('sync-request', replica.stateVector())
  const presence = createDocumentPresence({
    pages: sessions,
    frame: (payload) => encodeEnvelope(ownEnvelope('awareness', payload)),
    toGroup: (payload) => toGroup('awareness', payload),
  })
  // A body carries floor((B − 11) / 4) · 3 frame bytes, less a chunk's ~90 bytes of header.
  const fallback = {
    baseMs: Math.max(2000, 4 * config.replica.syncDelayMs.max),
    sendIntervalMs: 1000 / config.send.sendsPerSecond,
    bodyFrameBytes: Math.max(1, Math.floor((config.maxBodyBytes - 11) / 4) * 3 - 90),
  }
  const groupSync = createGroupSync(replica, {
    minDelayMs: config.replica.syncDelayMs.min,
    maxDelayMs: config.replica.syncDelayMs.max,
    random: clock.rng,
    timers: clock,
    answer: (payload) => toGroup('sync-response', payload),
    ask,
    rank: (requestId, asker) => c.answerRank(groupId, requestId, asker),
    fallbackMs: (answerBytes) => fallbackMs(answerBytes, fallback),
  })
  // Ask the group again while the replica is behind (a gap, or a member's state vector ahead),
  // with backoff; once after changes went quiet; and announce the state vector now and then.
  const gapRepair = createGapRepair({
    doc: replica.doc,
    ask,
    announce: () => toGroup('health', encodeHealth({ stateVector: replica.stateVector() })),
    intervalMs: Math.max(1000, 4 * config.replica.syncDelayMs.max),
    maxIntervalMs: REPAIR_MAX_INTERVAL_MS,
    quietMs: Math.max(2000, 20 * config.replica.syncDelayMs.max),
    announceMs: config.replica.healthIntervalMs,
    targetTtlMs: REPAIR_TARGET_TTL_MS,
    now: clock.now,
    random: clock.rng,
  })

  function fromGroup(frame: Uint8Array, env: Envelope, from?: MemberId, source = ''): void {
    if (from !== undefined) capabilities.roster.seen(from)
    if (env.kind === 'health') {
      // A member's state vector, when it sent one: the replica asks until it holds all of it.
      const sv = peerStateVector(env.payload)
      if (sv !== undefined) gapRepair.onPeerState(sv)
    }
    // Announcements are between sidecars; a bare probe still reaches the browsers.
    if (env.kind === 'health' && capabilities.onHealth(from, env.payload))
      return void metrics.announcements.inc({ direction: 'received' })
    if (env.kind === 'sync-request') {
      // The replica answers for this machine; its browsers hold nothing it lacks.
      if (!groupSync.onRequest(env.payload, source, `${env.senderId}/${env.messageId}`))
        return void metrics.receivedDropped.inc({ reason: 'invalid-payload' })
      const sv = decodeExactStateVector(env.payload)
      if (sv !== undefined) gapRepair.onPeerState(sv)
      return
    }
    if (DOC_KINDS.has(env.kind)) {
      // Durable before it is considered applied and before any browser sees it.
      const applied = storing(() => replica.apply(env.payload))
      if (applied === undefined) return
      if (!applied) return void metrics.receivedDropped.inc({ reason: 'invalid-payload' })
      if (env.kind !== 'update') groupSync.onPeerResponse(env.payload)
      gapRepair.check()
    }
    if (env.kind === 'awareness') presence.seen(env.payload)
    for (const s of sessions) s.send(frame)
  }

  function fromBrowser(session: Session, env: Envelope, frame: Uint8Array): void {
    metrics.envelopesIn.inc({ kind: env.kind })
    // An id this sidecar already holds: its sender's replay is acknowledged again (never sent
    // twice); another sender's reuse is refused, so it cannot stand in for the first one's change.
    const known = storing(() => ({ sender: store.sentIds.senderOf(docId, env.messageId) }))
    if (known === undefined) return
    if (known.sender !== undefined) {
      if (known.sender !== '' && known.sender !== env.senderId) {
        return session.refuse(
          'SIDECAR_MESSAGE_ID_TAKEN',
          'this message id belongs to another sender of this document; use a fresh id',
          { messageId: env.messageId, strike: false },
        )
      }
      metrics.replaysAcked.inc()
      return session.ack(env.messageId)
    }
    if (env.kind === 'sync-request') return answerLocally(session, env)
    // Members trust an announcement as the account's own: only the sidecar makes them.
    if (env.kind === 'health' && announces(env.payload))
      return session.refuse(
        'SIDECAR_BAD_PAYLOAD',
        'capability announcements are made by the sidecar, not by browsers',
        { messageId: env.messageId, strike: false },
      )
    if (!DOC_KINDS.has(env.kind)) return carryEphemeral(session, env, frame)
    const applied = storing(() => replica.apply(env.payload))
    if (applied === undefined) return
    if (!applied)
      return session.refuse('SIDECAR_BAD_PAYLOAD', `the ${env.kind} payload is not a Yjs update`, {
        messageId: env.messageId,
        strike: false,
      })
    // Durable in the replica and the outbox: the browser may forget it now.
    const accepted = storing(() => {
      store.outbox.accept(docId, env.senderId, env.messageId, frame, clock.now())
      return true
    })
    if (accepted !== true) return
    session.ack(env.messageId)
    c.markSent(docId, env.senderId, env.messageId)
    for (const other of sessions) if (other !== session) other.send(frame)
    let queued = queue.enqueue({ frame, messageId: env.messageId, owner: changeOwner(session), source: session })
    if (!queued || (c.reach.state !== 'reachable' && queue.waiting > MERGE_AT)) {
      queue.rewrite(merge)
      if (!queued)
        queued = queue.enqueue({ frame, messageId: env.messageId, owner: changeOwner(session), source: session })
    }
    // Still no room: the change is kept in the outbox and goes out with the next start.
    if (!queued)
      logger.warn(
        { queuedBytes: queue.queuedBytes },
        'send queue full even merged; a change waits in the outbox for the next start',
      )
    delivery.changed()
  }

  /** Presence and health: carried as they are, acknowledged when sent, never kept. */
  function carryEphemeral(session: Session, env: Envelope, frame: Uint8Array): void {
    if (env.kind === 'awareness') presence.seen(env.payload, session)
    c.markSent(docId, env.senderId, env.messageId)
    for (const other of sessions) if (other !== session) other.send(frame)
    const owner: SendOwner = {
      ack: (id) => session.ack(id),
      reject: (id, code, message) => session.refuse(code, message, { messageId: id, strike: false }),
    }
    if (!queue.enqueue({ frame, messageId: env.messageId, owner, source: session })) {
      session.refuse('SIDECAR_QUEUE_FULL', 'the send queue of this document is full; retry later', {
        messageId: env.messageId,
        strike: false,
      })
    }
  }

  /** Merges what waits in the queue into as few updates as the frame bound allows. */
  function merge(waiting: readonly QueuedEnvelope[]): QueuedEnvelope[] {
    return mergeBacklog(waiting, {
      maxPayloadBytes: Math.floor(config.browser.maxFrameBytes / 2),
      wrap: (payload) => {
        const env = ownEnvelope('update', payload)
        c.markSent(docId, env.senderId, env.messageId)
        return { frame: encodeEnvelope(env), messageId: env.messageId }
      },
      onMerged: (n) => metrics.backlogMerged.inc(n),
    })
  }

  /** The owner of a browser's change once it is durable: Signal's verdict goes to the pages. */
  function changeOwner(session: Session | undefined): SendOwner {
    return {
      ack: (id) => delivery.sent(id),
      reject: (id, code, message) => {
        storing(() => {
          store.outbox.remove(docId, [id])
          store.sentIds.forget(docId, [id])
        })
        session?.refuse(code, message, { messageId: id, strike: false })
        delivery.refused(message)
      },
    }
  }

  function resumeKept(): void {
    const kept = storing(() => store.outbox.list(docId)) ?? []
    const items = kept.map((row) => resumed(row.frame, row.messageId))
    for (const item of items.length > 1 ? merge(items) : items) queue.enqueue(item)
    if (items.length > 0) logger.info({ docId, envelopes: items.length }, 'sending the changes a previous run kept')
  }

  /**
   * A kept change as it goes out again. When its send had begun before the stop (its id is
   * remembered before the first body goes out, §8.5), Signal may hold that id already: the change
   * goes out under a fresh id, so no id reaches the group twice.
   */
  function resumed(frame: Uint8Array, messageId: string): QueuedEnvelope {
    const kept = { frame, messageId, owner: changeOwner(undefined) }
    const begun = storing(() => store.sentIds.senderOf(docId, messageId)) !== undefined
    if (!begun) return kept
    let env: Envelope
    try {
      env = decodeEnvelope(frame, { maxPayloadBytes: frame.byteLength })
    } catch {
      return kept
    }
    if (!DOC_KINDS.has(env.kind)) return kept
    const fresh = ownEnvelope('update', env.payload)
    c.markSent(docId, fresh.senderId, fresh.messageId)
    const owner = changeOwner(undefined)
    return {
      frame: encodeEnvelope(fresh),
      messageId: fresh.messageId,
      owner: {
        ack: () => owner.ack(messageId),
        reject: (_id, code, message) => owner.reject(messageId, code, message),
      },
    }
  }

  function reachChanged(state: Reachability['state']): void {
    if (queue.waiting > 1) queue.rewrite(merge)
    if (state === 'reachable' && !c.stopped()) ask()
    delivery.changed()
  }

  /**
   * A browser's sync-request is answered from the replica at once, with what it lacks, and is
   * not carried to the group (the sidecar keeps the group in sync itself). When the browser holds
   * something the replica lacks, the replica asks it back.
   */
  function answerLocally(session: Session, env: Envelope): void {
    let diff: Uint8Array
    let behind: boolean
    try {
      diff = replica.diff(env.payload)
      behind = replica.lacksFrom(env.payload)
    } catch {
      return session.refuse('SIDECAR_BAD_PAYLOAD', 'the sync-request payload is not a Yjs state vector', {
        messageId: env.messageId,
        strike: false,
      })
    }
    session.send(encodeEnvelope(ownEnvelope('sync-response', diff)))
    if (behind) session.send(encodeEnvelope(ownEnvelope('sync-request', replica.stateVector())))
  }

  return {
    docId,
    groupId,
    replica,
    queue,
    groupSync,
    gapRepair,
    capabilities,
    delivery,
    get sessionCount() {
      return sessions.size
    },
    // A new browser connection is told at once how far this document's changes have got.
    attach(session) {
      sessions.add(session)
      delivery.greet(session)
      presence.greet(session)
    },
    detach: (session) => {
      if (sessions.delete(session)) presence.leave(session)
    },
    fromBrowser,
    fromGroup,
    askGroup: ask,
    resumeKept,
    reachChanged,
    closeSockets,
    close(code, reason) {
      queue.close()
      closeSockets(code, reason)
      groupSync.dispose()
      gapRepair.dispose()
      capabilities.dispose()
      presence.dispose()
    },
  }
}
