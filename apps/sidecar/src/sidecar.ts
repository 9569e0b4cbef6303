/**
 * Composes one running sidecar: daemon checks, the events stream, one send queue per document,
 * the receive path, and the HTTP/WebSocket listener, opened last. A sidecar never runs
 * half-started: any startup failure undoes what was opened and rejects with a SidecarError.
 * @see docs/contract.md §4
 */
import type { AddressInfo } from 'node:net'
import { encodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import type { WebSocket } from 'ws'
import { createSession, CLOSE, type Session } from './browser/session.ts'
import { createWsServer } from './browser/ws-server.ts'
import { createChatRelay } from './chat/chat-relay.ts'
import { systemClock, type Clock } from './clock.ts'
import type { SidecarConfig } from './config.ts'
import { BroadcastRecoveryRequiredError, SidecarError, StoreError } from './errors.ts'
import { createOpsHandler } from './ops/health.ts'
import { createLogger, type Logger } from './ops/logger.ts'
import { createMetrics } from './ops/metrics.ts'
import { createIngest } from './receive/ingest.ts'
import { createGroupSync, type GroupSync } from './replica/group-sync.ts'
import { createGapRepair, type GapRepair } from './replica/gap-repair.ts'
import { loadReplica, type DocReplica } from './replica/replica.ts'
import { openReplicaStore, type ReplicaStore } from './replica/store.ts'
import { createInFlight, type InFlight } from './send/in-flight.ts'
import { createSendQueue, type SendOwner, type SendQueue } from './send/queue.ts'
import { createTokenBucket } from './send/token-bucket.ts'
import type { SignalBackend, SignalEventStream } from './signal/backend.ts'
import { runEventsLoop } from './signal/events-stream.ts'
import { createHttpSignalBackend } from './signal/http-backend.ts'
import { checkDaemon } from './startup.ts'
import { installNodeCodecs } from './node-codecs.ts'

/** A started sidecar. */
export interface RunningSidecar {
  /** `http://HOST:PORT`; browsers connect to `ws://HOST:PORT/v1/docs/<docUUID>`. */
  url: string
  port: number
  /** Stops accepting, flushes the send queues (bounded), closes WebSockets with 1001, closes the stream. */
  close(): Promise<void>
  /** The replica store's file. */
  storePath: string
}

export interface SidecarDeps {
  logger?: Logger
  /** Another backend (tests, or one that can assert lost history); the HTTP backend by default. */
  backend?: SignalBackend
  clock?: Clock
  /** Called once the sidecar has stopped itself because its store failed (the CLI exits 9). */
  onFatal?: (error: StoreError) => void
}

/** Kinds whose payload is a Yjs update and so feeds the replica. */
const DOC_KINDS: ReadonlySet<Kind> = new Set<Kind>(['update', 'sync-response', 'snapshot'])
const NO_OWNER: SendOwner = { ack: () => {}, reject: () => {} }
// Sent ids are pruned by age at most this often.
const PRUNE_EVERY_MS = 3_600_000

interface DocumentState {
  docId: string
  groupId: string
  sessions: Set<Session>
  queue: SendQueue
  replica: DocReplica
  groupSync: GroupSync
  gapRepair: GapRepair
  inFlight: InFlight
}

/**
 * Starts a sidecar.
 * @throws SidecarError with the code of the startup step that failed (see exitCodeFor).
 */
export async function startSidecar(config: SidecarConfig, deps: SidecarDeps = {}): Promise<RunningSidecar> {
  installNodeCodecs()
  const logger = deps.logger ?? createLogger(config.logLevel)
  const clock = deps.clock ?? systemClock
  const metrics = createMetrics()
  const backend = deps.backend ?? createHttpSignalBackend({ url: config.signal.url, account: config.signal.account, timeoutMs: config.signal.rpcTimeoutMs, streamIdleMs: config.signal.streamIdleMs })
  const sidecarId = clock.newUuid()
  let batchSeq = 0
  let ownSeq = 0

  // The store comes first: a sidecar never runs without it (exit 9, before any daemon call).
  let store: ReplicaStore
  const replicas = new Map<string, DocReplica>()
  try {
    store = openReplicaStore(config.replica.dataDir)
  } catch (error) {
    await backend.close()
    throw error
  }
  try {
    for (const { docId } of config.documents) replicas.set(docId, loadReplica(store, docId))
    store.sentIds.prune(clock.now() - config.replica.sentIdsTtlMs)
  } catch (error) {
    store.close()
    await backend.close()
    throw error
  }
  let lastPrune = clock.now()

  let facts: Awaited<ReturnType<typeof checkDaemon>>
  const firstAbort = new AbortController()
  let first: SignalEventStream
  try {
    facts = await checkDaemon(backend, config)
    try {
      first = await backend.openEvents(firstAbort.signal)
    } catch (error) {
      throw new SidecarError('SIDECAR_EVENTS_FAILED', `signal-cli events stream refused: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
  } catch (error) {
    await backend.close()
    store.close()
    throw error
  }

  let fatalError: StoreError | undefined
  let stopped = false
  // Set once every part exists; a store failure before that fails the start instead.
  let assembled = false
  let closed: Promise<void> | undefined
  function fatal(error: unknown): void {
    if (fatalError !== undefined) return
    fatalError = error instanceof StoreError ? error : new StoreError(store.path, `unexpected failure (${error instanceof Error ? error.message : String(error)})`, { cause: error })
    logger.fatal({ err: fatalError, store: store.path }, 'replica store failed; stopping the sidecar')
    const err = fatalError
    if (!assembled) return void (stopped = true)
    void stop().then(() => deps.onFatal?.(err))
  }
  /** Runs a step that touches the store; a store failure stops the sidecar. */
  function storing<T>(fn: () => T): T | undefined {
    if (stopped) return undefined
    try {
      return fn()
    } catch (error) {
      fatal(error)
      return undefined
    }
  }

  const docs = new Map<string, DocumentState>()
  const closeDocument = (doc: DocumentState, code: number, reason: string) => {
    for (const s of doc.sessions) s.close(code, reason)
  }
  for (const { docId, groupId } of config.documents) {
    const replica = replicas.get(docId) as DocReplica
    const doc: DocumentState = { docId, groupId, sessions: new Set(), queue: undefined as unknown as SendQueue, replica, groupSync: undefined as unknown as GroupSync, gapRepair: undefined as unknown as GapRepair, inFlight: createInFlight() }
    doc.queue = createSendQueue({
      groupId,
      backend,
      maxBodyBytes: config.maxBodyBytes,
      maxQueueBytes: config.send.maxQueueBytes,
      bucket: createTokenBucket({ ratePerSecond: config.send.sendsPerSecond, burst: config.send.burst, now: clock.now() }),
      retry: { attempts: config.send.attempts, baseMs: config.send.retryBaseMs, maxMs: config.send.retryMaxMs },
      now: clock.now,
      sleep: clock.sleep,
      rng: clock.rng,
      newBatchHeader: () => ({ docId, senderId: sidecarId, messageId: clock.newMessageId(), seq: batchSeq++ }),
      onAmbiguousFailure: () => closeDocument(doc, CLOSE.ambiguousSend, 'send outcome unknown; replay unacknowledged messages'),
      beforeSend: (ids) => {
        if (stopped) throw new StoreError(store.path, 'the sidecar is stopping')
        try {
          store.sentIds.remember(docId, ids, clock.now())
          if (clock.now() - lastPrune > PRUNE_EVERY_MS) {
            lastPrune = clock.now()
            store.sentIds.prune(lastPrune - config.replica.sentIdsTtlMs)
          }
        } catch (error) {
          fatal(error)
          throw error
        }
      },
      onUnsent: (ids) => {
        doc.inFlight.release(ids)
        storing(() => store.sentIds.forget(docId, ids))
      },
      metrics,
      logger,
    })
    doc.groupSync = createGroupSync(replica, {
      minDelayMs: config.replica.syncDelayMs.min,
      maxDelayMs: config.replica.syncDelayMs.max,
      random: clock.rng,
      answer: (payload) => toGroup(doc, 'sync-response', payload),
      ask: () => toGroup(doc, 'sync-request', doc.replica.stateVector()),
    })
    // Ask the group again while the replica has a gap, and once after changes went quiet.
    doc.gapRepair = createGapRepair({
      doc: replica.doc,
      ask: () => toGroup(doc, 'sync-request', doc.replica.stateVector()),
      intervalMs: Math.max(1000, 4 * config.replica.syncDelayMs.max),
      quietMs: Math.max(2000, 20 * config.replica.syncDelayMs.max),
      random: clock.rng,
    })
    docs.set(docId, doc)
  }

  metrics.replicaSyncSource.read = () => {
    const all = [...docs.values()].map((d) => d.groupSync.stats())
    return { answered: all.reduce((n, s) => n + s.answered, 0), suppressed: all.reduce((n, s) => n + s.suppressed, 0), askedBack: all.reduce((n, s) => n + s.askedBack, 0) }
  }

  /** An envelope of the sidecar's own (sync answers and requests), from its own sender id. */
  function ownEnvelope(docId: string, kind: Kind, payload: Uint8Array): Envelope {
    return { kind, flags: 0, docId, senderId: sidecarId, messageId: clock.newMessageId(), seq: ownSeq++, payload }
  }
  function toGroup(doc: DocumentState, kind: Kind, payload: Uint8Array): void {
    if (stopped) return
    const env = ownEnvelope(doc.docId, kind, payload)
    ingest.markSent(doc.docId, env.senderId, env.messageId)
    if (!doc.queue.enqueue({ frame: encodeEnvelope(env), messageId: env.messageId, owner: NO_OWNER })) logger.warn({ kind }, 'send queue full; dropped a sync message of the replica')
  }
  const docsByGroup = new Map(config.documents.map((d) => [d.groupId, d.docId]))

  const ingest = createIngest({
    docsByGroup,
    maxFrameBytes: config.browser.maxFrameBytes,
    reassembly: config.reassembly,
    dedup: config.dedup,
    now: clock.now,
    deliver: (docId, frame, env) => {
      const doc = docs.get(docId)
      if (doc === undefined) return
      if (env.kind === 'sync-request') {
        // The replica answers for this machine; its browsers hold nothing it lacks.
        if (!doc.groupSync.onRequest(env.payload)) metrics.receivedDropped.inc({ reason: 'invalid-payload' })
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
    },
    metrics,
    logger,
  })

  const createBrowserSession = (ws: WebSocket, docId: string, onFrame: typeof onEnvelope): Session =>
    createSession({
      ws, docId, sidecarId,
      maxFrameBytes: config.browser.maxFrameBytes,
      abuseLimit: config.browser.abuseLimit,
      rate: createTokenBucket({ ratePerSecond: config.browser.framesPerSecond, burst: config.browser.frameBurst, now: clock.now() }),
      now: clock.now,
      newMessageId: clock.newMessageId,
      onEnvelope: onFrame,
      metrics,
    })
  // Chat bindings (§4.9): relayed between browsers and the local loop, never replicated or queued.
  const chats = createChatRelay({
    bindings: config.chats.bindings,
    documentGroups: new Set(config.documents.map((d) => d.groupId)),
    operators: new Set(config.chats.operators),
    loopAccount: config.chats.loopAccount,
    browserOperators: config.chats.browserOperators,
    maxConnectionsPerChat: config.browser.maxConnectionsPerDoc,
    maxBodyBytes: config.maxBodyBytes,
    sidecarId,
    newMessageId: clock.newMessageId,
    makeSession: createBrowserSession,
    postBody: async (groupId, body) => void (await backend.sendGroupMessage(groupId, body)),
    logger,
  })

  const events = runEventsLoop(first, firstAbort, {
    backend,
    policy: { baseMs: config.events.reconnectBaseMs, maxMs: config.events.reconnectMaxMs },
    rng: clock.rng,
    sleep: clock.sleep,
    onEvent: (e) => {
      if (e.type === 'message' && chats.isChatGroup(e.groupId)) chats.onSignalMessage(e)
      else if (e.type === 'message') ingest.handle(e.groupId, e.body)
      else metrics.eventsSkipped.inc({ reason: e.reason })
    },
    onRecoveryRequired: (error: BroadcastRecoveryRequiredError) => {
      logger.error({ err: error }, 'transport history at risk; asking browsers for snapshots (4409)')
      for (const doc of docs.values()) if (error.groupIds.includes(doc.groupId)) closeDocument(doc, CLOSE.recoveryRequired, 'history at risk; send a full snapshot')
    },
    metrics,
    logger,
  })

  function onEnvelope(session: Session, env: Envelope, frame: Uint8Array): void {
    const doc = docs.get(session.docId)
    if (doc === undefined) return
    metrics.envelopesIn.inc({ kind: env.kind })
    // A replay of an id already on Signal is acknowledged again, never sent twice.
    const sent = storing(() => store.sentIds.has(doc.docId, env.messageId))
    if (sent === undefined) return
    if (sent) {
      metrics.replaysAcked.inc()
      return session.ack(env.messageId)
    }
    if (env.kind === 'sync-request') return answerLocally(doc, session, env)
    const owner: SendOwner = { ack: (id) => session.ack(id), reject: (id, code, message) => session.refuse(code, message, { messageId: id, strike: false }) }
    const queueOwner = doc.inFlight.claim(env.messageId, owner)
    if (queueOwner === undefined) return // already queued: this session is told with the first
    if (DOC_KINDS.has(env.kind)) {
      const applied = storing(() => doc.replica.apply(env.payload))
      if (applied !== true) {
        doc.inFlight.release([env.messageId])
        if (applied === false) session.refuse('SIDECAR_BAD_PAYLOAD', `the ${env.kind} payload is not a Yjs update`, { messageId: env.messageId, strike: false })
        return
      }
    }
    // A replay (after a 1011) reached the other local browsers when it first came: not again.
    const replay = ingest.markSent(doc.docId, env.senderId, env.messageId)
    if (!replay) for (const other of doc.sessions) if (other !== session) other.send(frame)
    const queued = doc.queue.enqueue({ frame, messageId: env.messageId, owner: queueOwner })
    if (!queued) {
      doc.inFlight.release([env.messageId])
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

  let ready = false
  const { server, wss } = createWsServer({
    allowedOrigins: config.allowedOrigins,
    maxFrameBytes: config.browser.maxFrameBytes,
    isDocument: (docId) => ready && docs.has(docId),
    hasRoom: (docId) => (docs.get(docId)?.sessions.size ?? Infinity) < config.browser.maxConnectionsPerDoc,
    onConnection: (ws: WebSocket, docId: string) => {
      const doc = docs.get(docId)
      if (doc === undefined) return ws.close(CLOSE.policyViolation)
      const session = createBrowserSession(ws, docId, onEnvelope)
      doc.sessions.add(session)
      metrics.connections.inc({ doc: docId })
      ws.on('error', (error) => logger.debug({ err: error }, 'browser socket error'))
      ws.on('close', () => {
        doc.sessions.delete(session)
        metrics.connections.dec({ doc: docId })
      })
    },
    chats: {
      admit: (chatId, role, req, group) => (ready ? chats.admit(chatId, role, req, group) : 404),
      onConnection: (ws, chatId, role, req) => chats.onConnection(ws, chatId, role, req),
    },
    onHttp: createOpsHandler({
      ready: () => ready,
      daemonReachable: () => backend.check(AbortSignal.timeout(2000)).then(() => true, () => false),
      eventsStreamUp: () => events.up,
    }, metrics),
  })

  async function shutdown(): Promise<void> {
    ready = false
    const closing = new Promise<void>((resolve) => server.close(() => resolve()))
    // After a store failure nothing more is sent: it could not be remembered.
    if (fatalError === undefined) await Promise.all([...docs.values()].map((d) => d.queue.drain(config.shutdownFlushMs)))
    stopped = true
    for (const doc of docs.values()) {
      doc.queue.close()
      closeDocument(doc, CLOSE.goingAway, 'sidecar shutting down')
    }
    chats.close(CLOSE.goingAway, 'sidecar shutting down')
    for (const ws of wss.clients) ws.terminate()
    for (const doc of docs.values()) {
      doc.groupSync.dispose()
      doc.gapRepair.dispose()
    }
    await events.stop()
    await backend.close()
    server.closeAllConnections()
    await closing
    store.close()
  }
  function stop(): Promise<void> {
    return (closed ??= shutdown())
  }
  assembled = true

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(config.listen.port, config.listen.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    await shutdown().catch(() => undefined)
    throw new SidecarError('SIDECAR_LISTEN_FAILED', `cannot listen on ${config.listen.host}:${config.listen.port} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error })
  }
  if (fatalError !== undefined) {
    await shutdown().catch(() => undefined)
    throw fatalError
  }
  ready = true
  const port = (server.address() as AddressInfo).port
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host
  const url = `http://${host}:${port}`
  logger.info({ url, documents: config.documents.length, store: store.path, signalCliVersion: facts.version ?? 'unavailable' }, `e2e-col sidecar ready on ${url}`)
  // Catch up on what the group said while this sidecar was down: members answer with what we lack.
  if (config.replica.syncOnStart) for (const doc of docs.values()) toGroup(doc, 'sync-request', doc.replica.stateVector())
  return { url, port, storePath: store.path, close: stop }
}
