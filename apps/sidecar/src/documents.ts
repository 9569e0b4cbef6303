/**
 * The mapped documents of one sidecar: per document, its browser sessions, replica, send queue,
 * group sync and gap repair, and the two ways in: an envelope from a local browser and one from
 * the group. Everything that changes the document is durable in the replica before it is
 * forwarded, queued or delivered; a browser's change is acknowledged once it is durable in the
 * replica and the outbox ("saved by your sidecar"), and from then on the sidecar owns its delivery
 * (delivery.ts tells the pages how far it got).
 * @see docs/sidecar.md §4.3–§4.7, §8
 */
import { CAPABILITY, decodeHealth, encodeEnvelope, encodeHealth, FLAGS, type Envelope, type Kind } from '@e2e-col/protocol'
import type { Session } from './browser/session.ts'
import type { Clock } from './clock.ts'
import type { SidecarConfig } from './config.ts'
import { StoreError } from './errors.ts'
import type { Logger } from './ops/logger.ts'
import type { Metrics } from './ops/metrics.ts'
import { createCapabilityExchange, type CapabilityExchange } from './group/capability-exchange.ts'
import type { MemberId } from './group/roster.ts'
import { createGapRepair, type GapRepair } from './replica/gap-repair.ts'
import { fallbackMs } from './replica/answer-rule.ts'
import { createGroupSync, type GroupSync } from './replica/group-sync.ts'
import type { DocReplica } from './replica/replica.ts'
import { decodeExactStateVector } from './replica/strict-yjs.ts'
import type { ReplicaStore } from './replica/store.ts'
import { attachmentSend, type AttachmentSend } from './send/attachment-send.ts'
import { deflateFrame, needsChunks } from './send/deflate-frame.ts'
import { createDelivery, type Delivery } from './send/delivery.ts'
import { mergeBacklog } from './send/merge-backlog.ts'
import { createSendQueue, type QueuedEnvelope, type SendOwner, type SendQueue } from './send/queue.ts'
import type { Reachability } from './send/reachability.ts'
import { createTokenBucket } from './send/token-bucket.ts'
import type { SignalBackend } from '@e2e-col/signal-cli'

export interface DocumentState {
  readonly docId: string
  readonly groupId: string
  readonly sessions: Set<Session>
  readonly queue: SendQueue
  readonly replica: DocReplica
  readonly groupSync: GroupSync
  readonly gapRepair: GapRepair
  /** What the group's members read, and this sidecar's announcements (contract §4.10). */
  readonly capabilities: CapabilityExchange
  /** What the pages of this document are told about their changes. */
  readonly delivery: Delivery
}

export interface DocumentsOptions {
  readonly config: SidecarConfig
  readonly backend: SignalBackend
  readonly reach: Reachability
  readonly clock: Clock
  readonly store: ReplicaStore
  /** The loaded replica of every mapped document. */
  readonly replicas: ReadonlyMap<string, DocReplica>
  readonly sidecarId: string
  /** This sidecar's Signal account, so its own devices are not counted as members. */
  readonly self: MemberId
  /** Records an id this sidecar sends (so Signal's copy is dropped); true when already recorded. */
  readonly markSent: (docId: string, senderId: string, messageId: string) => boolean
  /** This member's rank among those who may answer a group request (replica/answer-rule.ts). */
  readonly answerRank: (groupId: string, requestId: string, asker: string) => number
  /** True once the sidecar stops: nothing more is sent. */
  readonly stopped: () => boolean
  /** Runs a step that touches the store; a store failure stops the sidecar (undefined then). */
  readonly storing: <T>(fn: () => T) => T | undefined
  /** Stops the sidecar because the store failed. */
  readonly fatal: (error: unknown) => void
  readonly metrics: Metrics
  readonly logger: Logger
}

export interface Documents {
  has(docId: string): boolean
  get(docId: string): DocumentState | undefined
  values(): IterableIterator<DocumentState>
  /** An envelope a local browser sent (already checked by its session). */
  fromBrowser(session: Session, env: Envelope, frame: Uint8Array): void
  /**
   * An envelope from the group, deduplicated by the receive path; `from` is its Signal sender,
   * `source` that sender's key (answer rule, per-asker limits).
   */
  fromGroup(docId: string, frame: Uint8Array, env: Envelope, from?: MemberId, source?: string): void
  /** The group's listed members changed (or were read again). */
  setMembers(groupId: string, members: readonly MemberId[]): void
  /** Content sent to the document's group did not arrive whole: ask the group again (bounded). */
  lost(docId: string): void
  /** Stops announcing `feature` in every group (this machine cannot use it) and says so. */
  withdraw(feature: number): void
  /** Sends the replica's `sync-request` to the document's group. */
  askGroup(doc: DocumentState): void
  closeSockets(doc: DocumentState, code: number, reason: string): void
  /** A new browser connection: it is told at once how far this document's changes have got. */
  opened(session: Session): void
  /** Queues the changes a previous run accepted and Signal never took (call once, when started). */
  resumeKept(): void
  /** Waits (bounded) until every send queue is empty. */
  drain(timeoutMs: number): Promise<void>
  /** Frame bytes still waiting in the send queues. */
  queuedBytes(): number
  /** Stops the queues and timers, and closes every socket with `code`. */
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
// Sent ids are pruned by age at most this often.
const PRUNE_EVERY_MS = 3_600_000
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

export function createDocuments(o: DocumentsOptions): Documents {
  const { config, clock, store, storing, metrics, logger } = o
  const docs = new Map<string, DocumentState>()
  let batchSeq = 0
  let ownSeq = 0
  let lastPrune = clock.now()
  const features = (config.capabilities.includes('deflate') ? CAPABILITY.deflate : 0) | (config.capabilities.includes('attachments') ? CAPABILITY.attachments : 0)
  // Signal's attachmentCreate limit is per account (50, one per 1.2 s): one bucket for all groups.
  const uploads = createTokenBucket({ ratePerSecond: 1 / 1.2, burst: 50, now: clock.now() })

  const closeSockets = (doc: DocumentState, code: number, reason: string): void => {
    for (const s of doc.sessions) s.close(code, reason)
  }

  /** Remembers a send's ids durably before its first body goes out (§8.5). */
  function rememberSent(docId: string, ids: readonly string[]): void {
    if (o.stopped()) throw new StoreError(store.path, 'the sidecar is stopping')
    try {
      store.sentIds.remember(docId, o.sidecarId, ids, clock.now())
      if (clock.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = clock.now()
        store.sentIds.prune(lastPrune - config.replica.sentIdsTtlMs)
      }
    } catch (error) {
      o.fatal(error)
      throw error
    }
  }

  async function compress(doc: DocumentState, frame: Uint8Array): Promise<Uint8Array> {
    // Only when every member reads it: an older sidecar drops deflated envelopes.
    if ((features & CAPABILITY.deflate) === 0 || !doc.capabilities.roster.allRead(CAPABILITY.deflate)) return frame
    const smaller = await deflateFrame(frame, config.maxBodyBytes)
    if (smaller !== frame) {
      metrics.envelopesDeflated.inc()
      metrics.deflateSavedBytes.inc(frame.byteLength - smaller.byteLength)
    }
    return smaller
  }

  // A body carries floor((B − 11) / 4) · 3 frame bytes, less a chunk's ~90 bytes of header.
  const fallback = {
    baseMs: Math.max(2000, 4 * config.replica.syncDelayMs.max),
    sendIntervalMs: 1000 / config.send.sendsPerSecond,
    bodyFrameBytes: Math.max(1, Math.floor((config.maxBodyBytes - 11) / 4) * 3 - 90),
  }

  /** The frame as one attachment send, when it is large and every member reads attachments. */
  function asAttachment(doc: DocumentState, frame: Uint8Array): AttachmentSend | undefined {
    if ((features & CAPABILITY.attachments) === 0 || frame.byteLength < config.attachments.minBytes || !needsChunks(frame, config.maxBodyBytes)) return undefined
    const needs = CAPABILITY.attachments | (((frame[4] ?? 0) & FLAGS.deflated) === 0 ? 0 : CAPABILITY.deflate)
    if (!doc.capabilities.roster.allRead(needs) || !uploads.tryTake(clock.now())) return undefined
    try {
      return attachmentSend(frame)
    } catch {
      return undefined // a kind never carried as an attachment
    }
  }

  function createDocument(docId: string, groupId: string, replica: DocReplica): DocumentState {
    const queue = createSendQueue({
      groupId,
      backend: o.backend,
      maxBodyBytes: config.maxBodyBytes,
      maxQueueBytes: config.send.maxQueueBytes,
      bucket: createTokenBucket({ ratePerSecond: config.send.sendsPerSecond, burst: config.send.burst, now: clock.now() }),
      minIntervalMs: 1000 / config.send.sendsPerSecond,
      ...(config.send.compress ? { shrink: (frame: Uint8Array) => compress(doc, frame) } : {}),
      attachment: (frame) => asAttachment(doc, frame),
      retry: { attempts: config.send.attempts, baseMs: config.send.retryBaseMs, maxMs: config.send.retryMaxMs },
      now: clock.now,
      sleep: clock.sleep,
      rng: clock.rng,
      newBatchHeader: () => ({ docId, senderId: o.sidecarId, messageId: clock.newMessageId(), seq: batchSeq++ }),
      reach: o.reach,
      beforeSend: (ids) => rememberSent(docId, ids),
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
    const ask = (): void => toGroup(doc, 'sync-request', replica.stateVector())
    const sessions = new Set<Session>()
    const delivery = createDelivery({
      docId,
      sidecarId: o.sidecarId,
      sessions,
      reach: o.reach,
      now: clock.now,
      newMessageId: clock.newMessageId,
      unsent: () => storing(() => store.outbox.count(docId)) ?? 0,
      forget: (ids) => void storing(() => store.outbox.remove(docId, ids)),
    })
    const doc: DocumentState = {
      docId, groupId, sessions, queue, replica, delivery,
      capabilities: createCapabilityExchange({
        self: o.self,
        features,
        send: (payload) => {
          metrics.announcements.inc({ direction: 'sent' })
          toGroup(doc, 'health', payload)
        },
        answerDelayMs: { min: 200, max: 1500 },
        random: clock.rng,
      }),
      groupSync: createGroupSync(replica, {
        minDelayMs: config.replica.syncDelayMs.min,
        maxDelayMs: config.replica.syncDelayMs.max,
        random: clock.rng,
        timers: clock,
        answer: (payload) => toGroup(doc, 'sync-response', payload),
        ask,
        rank: (requestId, asker) => o.answerRank(groupId, requestId, asker),
        fallbackMs: (answerBytes) => fallbackMs(answerBytes, fallback),
      }),
      // Ask the group again while the replica is behind (a gap, or a member's state vector ahead),
      // with backoff; once after changes went quiet; and announce the state vector now and then.
      gapRepair: createGapRepair({
        doc: replica.doc,
        ask,
        announce: () => toGroup(doc, 'health', encodeHealth({ stateVector: replica.stateVector() })),
        intervalMs: Math.max(1000, 4 * config.replica.syncDelayMs.max),
        maxIntervalMs: REPAIR_MAX_INTERVAL_MS,
        quietMs: Math.max(2000, 20 * config.replica.syncDelayMs.max),
        announceMs: config.replica.healthIntervalMs,
        targetTtlMs: REPAIR_TARGET_TTL_MS,
        now: clock.now,
        random: clock.rng,
      }),
    }
    return doc
  }

  /** Merges what waits in the queue into as few updates as the frame bound allows. */
  function merge(doc: DocumentState, waiting: readonly QueuedEnvelope[]): QueuedEnvelope[] {
    return mergeBacklog(waiting, {
      maxPayloadBytes: Math.floor(config.browser.maxFrameBytes / 2),
      wrap: (payload) => {
        const env = ownEnvelope(doc.docId, 'update', payload)
        o.markSent(doc.docId, env.senderId, env.messageId)
        return { frame: encodeEnvelope(env), messageId: env.messageId }
      },
      onMerged: (n) => metrics.backlogMerged.inc(n),
    })
  }
  /** The owner of a browser's change once it is durable: Signal's verdict goes to the pages. */
  function changeOwner(doc: DocumentState, session: Session | undefined): SendOwner {
    return {
      ack: (id) => doc.delivery.sent(id),
      reject: (id, code, message) => {
        storing(() => {
          store.outbox.remove(doc.docId, [id])
          store.sentIds.forget(doc.docId, [id])
        })
        session?.refuse(code, message, { messageId: id, strike: false })
        doc.delivery.refused(message)
      },
    }
  }

  for (const { docId, groupId } of config.documents) {
    const replica = o.replicas.get(docId)
    if (replica === undefined) throw new Error(`no replica loaded for document ${docId}`)
    docs.set(docId, createDocument(docId, groupId, replica))
  }

  /** Queues what a previous run accepted and Signal never took, merged. */
  function resumeKept(): void {
    for (const doc of docs.values()) {
      const kept = storing(() => store.outbox.list(doc.docId)) ?? []
      const items = kept.map((row) => ({ frame: row.frame, messageId: row.messageId, owner: changeOwner(doc, undefined) }))
      for (const item of items.length > 1 ? merge(doc, items) : items) doc.queue.enqueue(item)
      if (items.length > 0) logger.info({ envelopes: items.length }, 'sending the changes a previous run kept')
    }
  }

  // Signal went away or came back: every page is told; a backlog is merged before it goes out, and
  // on the way back the state vectors are exchanged with the group (it may have missed ours, we theirs).
  o.reach.onChange((state) => {
    for (const doc of docs.values()) {
      if (doc.queue.waiting > 1) doc.queue.rewrite((waiting) => merge(doc, waiting))
      if (state === 'reachable' && !o.stopped()) toGroup(doc, 'sync-request', doc.replica.stateVector())
      doc.delivery.changed()
    }
  })

  metrics.replicaSyncSource.read = () => {
    const all = [...docs.values()].map((d) => d.groupSync.stats())
    return { answered: all.reduce((n, s) => n + s.answered, 0), suppressed: all.reduce((n, s) => n + s.suppressed, 0), askedBack: all.reduce((n, s) => n + s.askedBack, 0) }
  }

  /** An envelope of the sidecar's own (sync answers and requests), from its own sender id. */
  function ownEnvelope(docId: string, kind: Kind, payload: Uint8Array): Envelope {
    return { kind, flags: 0, docId, senderId: o.sidecarId, messageId: clock.newMessageId(), seq: ownSeq++, payload }
  }
  function toGroup(doc: DocumentState, kind: Kind, payload: Uint8Array): void {
    if (o.stopped()) return
    const env = ownEnvelope(doc.docId, kind, payload)
    metrics.replicaMessages.inc({ kind })
    o.markSent(doc.docId, env.senderId, env.messageId)
    if (!doc.queue.enqueue({ frame: encodeEnvelope(env), messageId: env.messageId, owner: NO_OWNER })) logger.warn({ kind }, 'send queue full; dropped a sync message of the replica')
  }

  function fromGroup(docId: string, frame: Uint8Array, env: Envelope, from?: MemberId, source = ''): void {
    const doc = docs.get(docId)
    if (doc === undefined) return
    if (from !== undefined) doc.capabilities.roster.seen(from)
    if (env.kind === 'health') {
      // A member's state vector, when it sent one: the replica asks until it holds all of it.
      const sv = peerStateVector(env.payload)
      if (sv !== undefined) doc.gapRepair.onPeerState(sv)
    }
    // Announcements are between sidecars; a bare probe still reaches the browsers.
    if (env.kind === 'health' && doc.capabilities.onHealth(from, env.payload)) return void metrics.announcements.inc({ direction: 'received' })
    if (env.kind === 'sync-request') {
      // The replica answers for this machine; its browsers hold nothing it lacks.
      if (!doc.groupSync.onRequest(env.payload, source, `${env.senderId}/${env.messageId}`)) return void metrics.receivedDropped.inc({ reason: 'invalid-payload' })
      const sv = decodeExactStateVector(env.payload)
      if (sv !== undefined) doc.gapRepair.onPeerState(sv)
      return
    }
    if (DOC_KINDS.has(env.kind)) {
      // Durable before it is considered applied and before any browser sees it.
      const applied = storing(() => doc.replica.apply(env.payload))
      if (applied === undefined) return
      if (!applied) return void metrics.receivedDropped.inc({ reason: 'invalid-payload' })
      if (env.kind !== 'update') doc.groupSync.onPeerResponse(env.payload)
      doc.gapRepair.check()
    }
    for (const s of doc.sessions) s.send(frame)
  }

  function fromBrowser(session: Session, env: Envelope, frame: Uint8Array): void {
    const doc = docs.get(session.docId)
    if (doc === undefined) return
    metrics.envelopesIn.inc({ kind: env.kind })
    // An id this sidecar already holds: its sender's replay is acknowledged again (never sent
    // twice); another sender's reuse is refused, so it cannot stand in for the first one's change.
    const known = storing(() => ({ sender: store.sentIds.senderOf(doc.docId, env.messageId) }))
    if (known === undefined) return
    if (known.sender !== undefined) {
      if (known.sender !== '' && known.sender !== env.senderId) {
        return session.refuse('SIDECAR_MESSAGE_ID_TAKEN', 'this message id belongs to another sender of this document; use a fresh id', { messageId: env.messageId, strike: false })
      }
      metrics.replaysAcked.inc()
      return session.ack(env.messageId)
    }
    if (env.kind === 'sync-request') return answerLocally(doc, session, env)
    // Members trust an announcement as the account's own: only the sidecar makes them.
    if (env.kind === 'health' && announces(env.payload)) return session.refuse('SIDECAR_BAD_PAYLOAD', 'capability announcements are made by the sidecar, not by browsers', { messageId: env.messageId, strike: false })
    if (!DOC_KINDS.has(env.kind)) return carryEphemeral(doc, session, env, frame)
    const applied = storing(() => doc.replica.apply(env.payload))
    if (applied === undefined) return
    if (!applied) return session.refuse('SIDECAR_BAD_PAYLOAD', `the ${env.kind} payload is not a Yjs update`, { messageId: env.messageId, strike: false })
    // Durable in the replica and the outbox: the browser may forget it now.
    const accepted = storing(() => {
      store.outbox.accept(doc.docId, env.senderId, env.messageId, frame, clock.now())
      return true
    })
    if (accepted !== true) return
    session.ack(env.messageId)
    o.markSent(doc.docId, env.senderId, env.messageId)
    for (const other of doc.sessions) if (other !== session) other.send(frame)
    let queued = doc.queue.enqueue({ frame, messageId: env.messageId, owner: changeOwner(doc, session), source: session })
    if (!queued || (o.reach.state !== 'reachable' && doc.queue.waiting > MERGE_AT)) {
      doc.queue.rewrite((waiting) => merge(doc, waiting))
      if (!queued) queued = doc.queue.enqueue({ frame, messageId: env.messageId, owner: changeOwner(doc, session), source: session })
    }
    // Still no room: the change is kept in the outbox and goes out with the next start.
    if (!queued) logger.warn({ queuedBytes: doc.queue.queuedBytes }, 'send queue full even merged; a change waits in the outbox for the next start')
    doc.delivery.changed()
  }

  /** Presence and health: carried as they are, acknowledged when sent, never kept. */
  function carryEphemeral(doc: DocumentState, session: Session, env: Envelope, frame: Uint8Array): void {
    o.markSent(doc.docId, env.senderId, env.messageId)
    for (const other of doc.sessions) if (other !== session) other.send(frame)
    const owner: SendOwner = { ack: (id) => session.ack(id), reject: (id, code, message) => session.refuse(code, message, { messageId: id, strike: false }) }
    if (!doc.queue.enqueue({ frame, messageId: env.messageId, owner, source: session })) {
      session.refuse('SIDECAR_QUEUE_FULL', 'the send queue of this document is full; retry later', { messageId: env.messageId, strike: false })
    }
  }

  /**
   * A browser's sync-request is answered from the replica at once, with what it lacks, and is
   * not carried to the group (the sidecar keeps the group in sync itself). When the browser holds
   * something the replica lacks, the replica asks it back.
   */
  function answerLocally(doc: DocumentState, session: Session, env: Envelope): void {
    let diff: Uint8Array
    let behind: boolean
    try {
      diff = doc.replica.diff(env.payload)
      behind = doc.replica.lacksFrom(env.payload)
    } catch {
      return session.refuse('SIDECAR_BAD_PAYLOAD', 'the sync-request payload is not a Yjs state vector', { messageId: env.messageId, strike: false })
    }
    session.send(encodeEnvelope(ownEnvelope(doc.docId, 'sync-response', diff)))
    if (behind) session.send(encodeEnvelope(ownEnvelope(doc.docId, 'sync-request', doc.replica.stateVector())))
  }

  return {
    has: (docId) => docs.has(docId),
    get: (docId) => docs.get(docId),
    values: () => docs.values(),
    fromBrowser,
    fromGroup,
    askGroup: (doc) => toGroup(doc, 'sync-request', doc.replica.stateVector()),
    setMembers(groupId, members) {
      for (const doc of docs.values()) if (doc.groupId === groupId) doc.capabilities.roster.setMembers(members)
    },
    lost: (docId) => docs.get(docId)?.gapRepair.lost(),
    withdraw(feature) {
      for (const doc of docs.values()) doc.capabilities.withdraw(feature)
    },
    closeSockets,
    opened: (session) => docs.get(session.docId)?.delivery.greet(session),
    resumeKept,
    async drain(timeoutMs) {
      // While Signal is away nothing would go out: what is queued is in the outbox for the next start.
      if (o.reach.state !== 'reachable') return
      await Promise.all([...docs.values()].map((d) => d.queue.drain(timeoutMs)))
    },
    queuedBytes: () => [...docs.values()].reduce((n, d) => n + d.queue.queuedBytes, 0),
    close(code, reason) {
      for (const doc of docs.values()) {
        doc.queue.close()
        closeSockets(doc, code, reason)
        doc.groupSync.dispose()
        doc.gapRepair.dispose()
        doc.capabilities.dispose()
      }
    },
  }
}
