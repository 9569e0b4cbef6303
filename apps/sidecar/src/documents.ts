/**
 * The documents one sidecar serves, by document id and by group id. Documents are added and
 * removed while the sidecar runs (one created from the page is served at once; one left stops
 * at once); each {@link Document} owns its sessions, queue and timers. Every document, configured
 * or made at run time, shares one Signal reachability and keeps its accepted changes in the durable
 * outbox until Signal takes them.
 * @see docs/sidecar.md §4.3–§4.7, §8
 */
import { CAPABILITY, type Envelope } from '@e2e-col/protocol'
import type { SignalBackend } from '@e2e-col/signal-cli'
import type { Clock } from './clock.ts'
import type { SidecarConfig } from './config.ts'
import { createDocument, type Document } from './document/document.ts'
import type { ChangeStore, DocumentPorts } from './document/ports.ts'
import { StoreError } from './errors.ts'
import type { MemberId } from './group/roster.ts'
import type { Histories } from './history/histories.ts'
import type { HistoryTable } from './history/history-table.ts'
import type { Logger } from './ops/logger.ts'
import type { Metrics } from './ops/metrics.ts'
import type { DocReplica } from './replica/replica.ts'
import { createDocumentsInMemory } from './documents-in-memory.ts'
import type { ReplicaStore } from './replica/store.ts'
import type { AuthorTable } from './authorship/author-table.ts'
import { createOutbound } from './send/outbound.ts'
import type { Reachability } from './send/reachability.ts'
import type { Carried, Changer } from './stranded/rejoin-port.ts'
import { notSharedView, openNotSharedBook, type NotSharedView } from './stranded/not-shared-book.ts'
import { rejoinDocument } from './stranded/rejoin.ts'

export type { Document } from './document/document.ts'

/** What the collection is given, once per sidecar; it builds every document's ports from it. */
export interface DocumentsOptions {
  readonly config: SidecarConfig
  readonly backend: SignalBackend
  /** Whether Signal takes sends now: one state for every document's queue. */
  readonly reach: Reachability
  readonly clock: Clock
  readonly store: ReplicaStore
  /** Which account each client id of a document belongs to (authorship's table). */
  readonly authors: AuthorTable
  /** History's change log, cleared of unsettled stamps when a document rejoins its group (stranded/rejoin.ts). */
  readonly history: Pick<HistoryTable, 'settle'>
  readonly sidecarId: string
  /** This sidecar's Signal account, so its own devices are not counted as members. */
  readonly self: MemberId
  /** Records an id this sidecar sends (so Signal's copy is dropped); true when already recorded. */
  markSent(docId: string, senderId: string, messageId: string): boolean
  /** This member's rank among those who may answer a group request (replica/answer-rule.ts). */
  answerRank(groupId: string, requestId: string, asker: string): number
  /** True once the sidecar stops: nothing more is sent. */
  stopped(): boolean
  /** Runs a step that touches the store; a store failure stops the sidecar (undefined then). */
  storing<T>(fn: () => T): T | undefined
  readonly metrics: Metrics
  readonly logger: Logger
  /** Stops the sidecar because the store failed. */
  readonly fatal: (error: unknown) => void
  /** Each served document's history, attached to its replica while it is served. */
  readonly histories?: Histories
  /** A member's name as this person's contacts tell it apart (stamped on the presence pages see). */
  readonly shownName?: (number: string) => string | undefined
}

export interface Documents {
  /** True for a served document, in memory or not. */
  has(docId: string): boolean
  /** A served document, loaded into memory first when it is out (undefined: not served, or the store failed). */
  get(docId: string): Document | undefined
  /** The served document if it is in memory now; never loads it. */
  loaded(docId: string): Document | undefined
  /** The id of the document a group carries, if served; never loads it. */
  servedIn(groupId: string): string | undefined
  /** The document carried by a group, if served (loaded first). */
  byGroup(groupId: string): Document | undefined
  /** The served documents in memory now. */
  values(): IterableIterator<Document>
  /** Every served document's id, in memory or not. */
  ids(): IterableIterator<string>
  /** Served documents, in memory or not. */
  readonly size: number
  /** Served documents in memory now. */
  readonly inMemory: number
  /**
   * Starts serving a document over its group with its loaded replica.
   * @throws Error when the document or the group is served already
   */
  add(docId: string, groupId: string, replica: DocReplica): Document
  /**
   * Starts serving a document over its group; its replica loads on the first page, envelope or
   * call that needs it (decisions/0040).
   * @throws Error when the document or the group is served already
   */
  serve(docId: string, groupId: string): void
  /** Calls `hook` each time a document comes into memory; what it returns runs when it leaves. */
  onLoad(hook: (doc: Document) => (() => void) | void): void
  /** Stops serving a document: its queue stops and its sockets close with `code`. */
  remove(docId: string, code: number, reason: string): void
  /** An envelope from a group, deduplicated by the receive path; `from` is its Signal sender, `source` its key. */
  /** True when the document refused the envelope's content (not the sender's to make). */
  fromGroup(docId: string, frame: Uint8Array, env: Envelope, from?: MemberId, source?: string): boolean | undefined
  /** The group's listed members changed (or were read again). */
  setMembers(groupId: string, members: readonly MemberId[]): void
  /** Content sent to the document's group did not arrive whole: ask the group again (bounded). */
  lost(docId: string, source?: string): void
  /** Stops announcing `feature` in the document's group (it cannot be used there now) and says so. */
  withdraw(docId: string, feature: number): void
  /** Announces `feature` again in the document's group after a withdrawal. */
  restore(docId: string, feature: number): void
  /**
   * The sidecar is ready: what a previous run accepted and Signal never took is queued (its
   * documents loaded for it), the first served documents are loaded up to the bound, and the
   * documents in memory greet their groups and, with `syncOnStart`, ask them what they lack. A
   * document loaded later does both on its first load.
   */
  start(): void
  /** Waits (bounded) until every send queue is empty. */
  drain(timeoutMs: number): Promise<void>
  /** Frame bytes still waiting in the send queues. */
  queuedBytes(): number
  /** Stops every document's queue and timers, and closes every socket with `code`. */
  close(code: number, reason: string): void
  /**
   * A served document's edits not shared because this account was made a viewer or a commenter
   * first (decisions/0032); `nameOf` tells a number as this person's contacts tell it apart.
   */
  notShared(docId: string, nameOf: (number: string) => string): NotSharedView | undefined
  /** A group update from `number` was received for `groupId` (a demotion learned next names them). */
  groupChanged(groupId: string, number: string | undefined): void
}

// Sent ids are pruned by age at most this often.
const PRUNE_EVERY_MS = 3_600_000

export function createDocuments(o: DocumentsOptions): Documents {
  // Served documents (in memory or not), both ways.
  const served = new Map<string, string>()
  const groups = new Map<string, string>()
  const shared = createSharedPorts(o)
  const storeFor = createStorePorts(o)
  // Edits not shared because this account was made a viewer first (decisions/0032).
  const notShared = openNotSharedBook(o.config.replica.dataDir, o.clock.now)
  // Who sent the last group update of each served document's group, and when (stranded/rejoin-port.ts).
  const changers = new Map<string, Changer>()
  const memory = createDocumentsInMemory(o, (docId, groupId, replica, carry) => {
    const rejoin = {
      book: notShared,
      changer: () => changers.get(groupId),
      // Later, not inside the document's own call that asked for it.
      rejoin: (state: Uint8Array | undefined, carried: Carried) =>
        queueMicrotask(() => rejoinDocument(rejoinParts, docId, state, carried)),
    }
    const ports = { ...shared, store: storeFor(docId), authors: o.authors.rowsOf(docId), rejoin }
    return createDocument(ports, docId, groupId, replica, carry)
  })
  const { docs } = memory
  // Features each document withdrew (and has not announced again): a document that leaves memory
  // and comes back keeps not announcing them, and announces them when they come back.
  const withdrawn = new Map<string, number>()
  memory.onLoad((doc) => {
    const features = withdrawn.get(doc.docId)
    if (features !== undefined) doc.group.keepWithdrawn(features)
  })
  const load = (docId: string): Document | undefined => {
    const groupId = served.get(docId)
    return groupId === undefined ? undefined : memory.load(docId, groupId)
  }
  function claim(docId: string, groupId: string): void {
    if (served.has(docId)) throw new Error(`document ${docId} is served already`)
    if (groups.has(groupId)) throw new Error(`group ${groupId} carries a document already`)
    served.set(docId, groupId)
    groups.set(groupId, docId)
  }

  const collection: Documents = {
    has: (docId) => served.has(docId),
    get: load,
    loaded: (docId) => docs.get(docId),
    servedIn: (groupId) => groups.get(groupId),
    byGroup(groupId) {
      const docId = groups.get(groupId)
      return docId === undefined ? undefined : load(docId)
    },
    values: () => docs.values(),
    ids: () => served.keys(),
    get size() {
      return served.size
    },
    get inMemory() {
      return docs.size
    },
    add(docId, groupId, replica) {
      claim(docId, groupId)
      return memory.open(docId, groupId, replica)
    },
    serve: claim,
    onLoad: memory.onLoad,
    remove(docId, code, reason) {
      const groupId = served.get(docId)
      if (groupId === undefined) return
      served.delete(docId)
      groups.delete(groupId)
      withdrawn.delete(docId)
      memory.forget(docId, code, reason)
    },
    fromGroup(docId, frame, env, from, source) {
      // Presence is for open pages: a document out of memory has none, so it is not loaded for it.
      if (env.kind === 'awareness' && !docs.has(docId)) return undefined
      return load(docId)?.group.receive(frame, env, from, source)
    },
    setMembers(groupId, members) {
      const docId = groups.get(groupId)
      if (docId !== undefined) docs.get(docId)?.group.setMembers(members)
    },
    lost: (docId, source) => load(docId)?.group.lost(source),
    withdraw(docId, feature) {
      if (!served.has(docId)) return
      // Loaded first: a document that left memory comes back as it was, so the withdrawal is said.
      const doc = load(docId)
      withdrawn.set(docId, (withdrawn.get(docId) ?? 0) | feature)
      doc?.group.withdraw(feature)
    },
    restore(docId, feature) {
      // Loaded first: a document that left memory comes back still withdrawn, so it announces.
      const doc = load(docId)
      const left = (withdrawn.get(docId) ?? 0) & ~feature
      if (left === 0) withdrawn.delete(docId)
      else withdrawn.set(docId, left)
      doc?.group.restore(feature)
    },
    start: () => memory.start(served),
    async drain(timeoutMs) {
      // While Signal is away nothing would go out: what is queued is in the outbox for the next start.
      if (o.reach.state !== 'reachable') return
      await Promise.all([...docs.values()].map((d) => d.outbox.drain(timeoutMs)))
    },
    queuedBytes: () => [...docs.values()].reduce((n, d) => n + d.outbox.queuedBytes, 0),
    close: memory.close,
    notShared(docId, nameOf) {
      const doc = load(docId)
      return doc === undefined ? undefined : notSharedView(notShared, docId, doc.roles.self(), nameOf)
    },
    groupChanged(groupId, number) {
      if (number === undefined || !groups.has(groupId)) return
      // Kept for served groups only (one served anew after a rejoin keeps its entry meanwhile).
      for (const id of changers.keys()) if (!groups.has(id)) changers.delete(id)
      changers.set(groupId, { number, at: o.clock.now() })
    },
  }
  const rejoinParts = {
    store: o.store,
    history: o.history,
    storing: o.storing,
    get: collection.get,
    remove: collection.remove,
    add: collection.add,
  }
  return collection
}

/** The ports every document of this sidecar shares: one sending side, one own-envelope sequence. */
function createSharedPorts(o: DocumentsOptions): Omit<DocumentPorts, 'store' | 'authors'> {
  const { config, clock, metrics, logger } = o
  const features =
    (config.capabilities.includes('deflate') ? CAPABILITY.deflate : 0) |
    (config.capabilities.includes('attachments') ? CAPABILITY.attachments : 0)
  let ownSeq = 0
  return {
    shownName: o.shownName,
    outbound: createOutbound({
      backend: o.backend,
      reach: o.reach,
      clock,
      sidecarId: o.sidecarId,
      features,
      send: config.send,
      maxBodyBytes: config.maxBodyBytes,
      attachmentMinBytes: config.attachments.minBytes,
      stopped: o.stopped,
      metrics,
      logger,
    }),
    own: {
      sidecarId: o.sidecarId,
      make: (docId, kind, payload) => ({
        kind,
        flags: 0,
        docId,
        senderId: o.sidecarId,
        messageId: clock.newMessageId(),
        seq: ownSeq++,
        payload,
      }),
    },
    group: {
      self: o.self,
      features,
      answerRank: o.answerRank,
      announceAuthors: config.announceAuthors,
      derivedClientIds: config.derivedClientIds,
    },
    sent: { markSent: o.markSent },
    reach: o.reach,
    limits: {
      maxFrameBytes: config.browser.maxFrameBytes,
      maxBodyBytes: config.maxBodyBytes,
      sendsPerSecond: config.send.sendsPerSecond,
      syncDelayMs: config.replica.syncDelayMs,
      healthIntervalMs: config.replica.healthIntervalMs,
    },
    clock,
    metrics,
    logger,
  }
}

/**
 * Each document's rows in the store, bound to its id. A failed step stops the sidecar (`storing`);
 * ids are pruned by age and count when a send remembers new ones, at most once an hour.
 */
function createStorePorts(o: DocumentsOptions): (docId: string) => ChangeStore {
  const { store, storing, clock } = o
  let lastPrune = clock.now()
  function rememberSent(docId: string, ids: readonly string[]): void {
    if (o.stopped()) throw new StoreError(store.path, 'the sidecar is stopping')
    try {
      store.sentIds.remember(docId, o.sidecarId, ids, clock.now())
      if (clock.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = clock.now()
        store.sentIds.prune(lastPrune - o.config.replica.sentIdsTtlMs, o.config.replica.sentIdsMax)
      }
    } catch (error) {
      o.fatal(error)
      throw error
    }
  }
  return (docId) => ({
    storing,
    senderOf: (messageId) =>
      storing(() => {
        const sender = store.sentIds.senderOf(docId, messageId)
        return sender === undefined ? { known: false } : { known: true, sender }
      }),
    accept: (senderId, messageId, frame) =>
      storing(() => {
        store.outbox.accept(docId, senderId, messageId, frame, clock.now())
        return true
      }) === true,
    kept: () => storing(() => store.outbox.list(docId)) ?? [],
    unsent: () => storing(() => store.outbox.count(docId)) ?? 0,
    delivered: (ids) => void storing(() => store.outbox.remove(docId, ids)),
    dropUnsent: (ids) =>
      void storing(() => {
        store.outbox.remove(docId, ids)
        store.sentIds.forget(docId, ids)
      }),
    rememberSent: (ids) => rememberSent(docId, ids),
  })
}
