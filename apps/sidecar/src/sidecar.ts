/**
 * Composes one running sidecar: the replica store, daemon checks, the events stream, the mapped
 * documents (documents.ts), the receive path, chat bindings and the HTTP/WebSocket listener,
 * opened last. A sidecar never runs half-started: each part pushes its closer onto one stack as it
 * opens, and a failed start unwinds that stack and rejects with a SidecarError; so does a shutdown.
 * @see docs/sidecar.md §4
 */
import type { AddressInfo } from 'node:net'
import {
  createHttpSignalBackend,
  runEventsLoop,
  type BroadcastRecoveryRequiredError,
  type SignalBackend,
  type SignalEventStream,
} from '@e2e-col/signal-cli'
import type { WebSocket } from 'ws'
import { CAPABILITY, CLOSE_CODES, type Envelope } from '@e2e-col/protocol'
import { createSession, type Session } from './browser/session.ts'
import { createWsServer } from './browser/ws-server.ts'
import { createChatRelay } from './chat/chat-relay.ts'
import { systemClock, type Clock } from './clock.ts'
import { createCloserStack } from './closers.ts'
import { receiveBodyBound, type SidecarConfig } from './config.ts'
import { createDocuments } from './documents.ts'
import { SidecarError, StoreError } from './errors.ts'
import { createOpsHandler } from './ops/health.ts'
import { createLogger, type Logger } from './ops/logger.ts'
import { createMetrics } from './ops/metrics.ts'
import { membersOf, selfIn } from './group/members.ts'
import { createAttachmentFetcher } from './receive/attachment-fetch.ts'
import { createIngest, SELF } from './receive/ingest.ts'
import { createMembership, sourceKey } from './receive/membership.ts'
import { answerRank } from './replica/answer-rule.ts'
import { loadReplica, type DocReplica } from './replica/replica.ts'
import { openReplicaStore, type ReplicaStore } from './replica/store.ts'
import { createReachability } from './send/reachability.ts'
import { createTokenBucket } from './send/token-bucket.ts'
import { checkDaemon } from './startup.ts'
import { installNodeCodecs } from './node-codecs.ts'
import { createDocsApi } from './library/api.ts'
import { createDocumentLibrary, type DocumentLibrary, type LibraryBackend } from './library/library.ts'

function hasDocumentMethods(backend: SignalBackend): backend is LibraryBackend {
  const b = backend as Partial<LibraryBackend>
  return (
    typeof b.createGroupWith === 'function' &&
    typeof b.updateGroup === 'function' &&
    typeof b.leaveGroup === 'function' &&
    typeof b.listContacts === 'function' &&
    typeof b.acceptGroupRequest === 'function'
  )
}

// "Not found" answers in a row after which this sidecar stops announcing it reads attachments.
const MISSING_BEFORE_WITHDRAW = 3

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

/**
 * Starts a sidecar.
 * @throws SidecarError with the code of the startup step that failed (see exitCodeFor).
 */
export async function startSidecar(config: SidecarConfig, deps: SidecarDeps = {}): Promise<RunningSidecar> {
  installNodeCodecs()
  const logger = deps.logger ?? createLogger(config.logLevel)
  const clock = deps.clock ?? systemClock
  const metrics = createMetrics()
  const backend =
    deps.backend ??
    createHttpSignalBackend({
      url: config.signal.url,
      account: config.signal.account,
      timeoutMs: config.signal.rpcTimeoutMs,
      streamIdleMs: config.signal.streamIdleMs,
    })
  const sidecarId = clock.newUuid()
  // Every part pushes its closer as soon as it is open; a failed start and a shutdown both unwind it.
  const closers = createCloserStack()
  closers.push(() => backend.close())

  // The store comes first: a sidecar never runs without it (exit 9, before any daemon call).
  let store: ReplicaStore
  const replicas = new Map<string, DocReplica>()
  let facts: Awaited<ReturnType<typeof checkDaemon>>
  const firstAbort = new AbortController()
  let first: SignalEventStream
  try {
    store = openReplicaStore(config.replica.dataDir)
    const opened = store
    closers.push(() => opened.close()) // releases the data folder's lock whatever failed before
    for (const { docId } of config.documents) replicas.set(docId, loadReplica(store, docId))
    store.sentIds.prune(clock.now() - config.replica.sentIdsTtlMs)
    facts = await checkDaemon(backend, config)
    try {
      first = await backend.openEvents(firstAbort.signal)
    } catch (error) {
      throw new SidecarError(
        'SIDECAR_EVENTS_FAILED',
        `signal-cli events stream refused: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      )
    }
  } catch (error) {
    await closers.unwind().catch(() => undefined)
    throw error
  }

  let fatalError: StoreError | undefined
  // Read by the parts: `stopped` once nothing more may be stored or sent, `ready` while browsers are admitted.
  let stopped = false
  let ready = false
  let stopping: Promise<void> | undefined
  function fatal(error: unknown): void {
    if (fatalError !== undefined) return
    fatalError =
      error instanceof StoreError
        ? error
        : new StoreError(store.path, `unexpected failure (${error instanceof Error ? error.message : String(error)})`, {
            cause: error,
          })
    logger.fatal({ err: fatalError, store: store.path }, 'replica store failed; stopping the sidecar')
    const err = fatalError
    // Before the sidecar is up, the start itself fails with this error.
    if (!ready && stopping === undefined) return void (stopped = true)
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

  const self = selfIn(facts.groups, config.signal.account)
  const reach = createReachability({
    attempts: config.send.attempts,
    probeBaseMs: config.send.retryBaseMs,
    probeMaxMs: config.send.offlineProbeMaxMs,
    now: clock.now,
    sleep: clock.sleep,
    rng: clock.rng,
    logger,
  })
  reach.onChange((state) => {
    for (const s of ['reachable', 'unreachable', 'daemon-down'])
      metrics.signalState.set({ state: s }, s === state ? 1 : 0)
  })
  metrics.signalState.set({ state: 'reachable' }, 1)
  const docs = createDocuments({
    config,
    backend,
    reach,
    clock,
    store,
    sidecarId,
    metrics,
    logger,
    storing,
    fatal,
    self,
    markSent: (docId, senderId, messageId) => ingest.markSent(docId, senderId, messageId),
    answerRank: (groupId, requestId, asker) =>
      answerRank(requestId, membership.self(), membership.members(groupId), asker),
    stopped: () => stopped,
  })
  for (const { docId, groupId } of config.documents) {
    const replica = replicas.get(docId)
    if (replica === undefined) throw new Error(`no replica loaded for document ${docId}`)
    docs.add(docId, groupId, replica)
  }
  // Every served document's outbox, those made at run time included.
  const unsentEnvelopes = (): number =>
    storing(() => [...docs.values()].reduce((n, d) => n + store.outbox.count(d.docId), 0)) ?? 0
  metrics.unsentSource.read = unsentEnvelopes
  const setMembers = (groups: typeof facts.groups): void => {
    // Every served document, those made at run time included.
    for (const doc of docs.values()) docs.setMembers(doc.groupId, membersOf(groups, doc.groupId))
  }
  setMembers(facts.groups)
  // A daemon that keeps no attachments (--ignore-attachments, a full disk) answers "not found"
  // every time: after a few in a row this sidecar stops announcing it reads them.
  let missingInARow = 0
  const fetcher = createAttachmentFetcher({
    fetch: (id, groupId) => backend.getAttachment(id, groupId),
    maxPayloadBytes: config.browser.maxFrameBytes,
    timeoutMs: config.attachments.fetchTimeoutMs,
    maxInFlight: 4,
    maxWaiting: 64,
  })
  // Documents made at run time need a backend that administers groups (the HTTP one does).
  const library: DocumentLibrary | undefined = hasDocumentMethods(backend)
    ? createDocumentLibrary({
        backend,
        you: facts.account ?? '',
        documents: docs,
        store,
        fixed: config.documents,
        // Read when invitations are listed, after the chat relay exists.
        reserved: (groupId) => chats.isChatGroup(groupId),
        linkedDevice: config.setup === 'linked-device',
        clock,
        storing,
        stopped: () => stopped,
        closeCode: CLOSE_CODES.POLICY_VIOLATION,
        logger,
      })
    : undefined
  try {
    library?.serveStored()
  } catch (error) {
    first.close()
    await closers.unwind().catch(() => undefined)
    throw error
  }
  // The stored documents' member lists, from the same listing as the fixed ones.
  setMembers(facts.groups)

  const ingest = createIngest({
    docOfGroup: (groupId) => docs.byGroup(groupId)?.docId,
    maxFrameBytes: config.browser.maxFrameBytes,
    maxBodyBytes: receiveBodyBound(config),
    reassembly: config.reassembly,
    dedup: config.dedup,
    now: clock.now,
    deliver: (docId, frame, env, from, source) => docs.fromGroup(docId, frame, env, from, source),
    readDeflate: config.capabilities.includes('deflate'),
    ...(config.capabilities.includes('attachments') ? { attachments: fetcher } : {}),
    onLost: (docId, reason) => {
      docs.lost(docId)
      if (reason === 'missing' && ++missingInARow === MISSING_BEFORE_WITHDRAW) {
        logger.warn(
          { missing: missingInARow },
          'signal-cli has none of the attachments it announced; no longer reading attachments (members send text)',
        )
        docs.withdraw(CAPABILITY.attachments)
      }
    },
    onFetched: () => {
      missingInARow = 0
    },
    metrics,
    logger,
  })

  const membership = createMembership({
    account: config.signal.account,
    groupIds: config.documents.map((d) => d.groupId),
    serves: (groupId) => docs.byGroup(groupId) !== undefined,
    initial: facts.groups,
    list: (groupId) => backend.listGroups(groupId),
    refreshMs: config.membersRefreshMs,
    minRefreshGapMs: Math.min(config.membersRefreshMs, 5_000),
    maxHeld: 256,
    now: clock.now,
    dropped: (reason) => metrics.receivedDropped.inc({ reason }),
    onListFailed: (error) => logger.warn({ err: error }, 'listGroups failed; keeping the last member list'),
  })
  closers.push(() => membership.dispose())

  const createBrowserSession = (
    ws: WebSocket,
    docId: string,
    onFrame: (session: Session, env: Envelope, frame: Uint8Array) => void,
  ): Session =>
    createSession({
      ws,
      docId,
      sidecarId,
      maxFrameBytes: config.browser.maxFrameBytes,
      abuseLimit: config.browser.abuseLimit,
      rate: createTokenBucket({
        ratePerSecond: config.browser.framesPerSecond,
        burst: config.browser.frameBurst,
        now: clock.now(),
      }),
      now: clock.now,
      newMessageId: clock.newMessageId,
      onEnvelope: onFrame,
      metrics,
    })
  // Chat bindings (§4.9): relayed between browsers and the local loop, never replicated or queued.
  const chats = createChatRelay({
    bindings: config.chats.bindings,
    isDocumentGroup: (groupId) => docs.byGroup(groupId) !== undefined,
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
      else if (e.type === 'message') {
        // The account's own devices (sync copies) are one source; other members one each.
        const source = e.origin === 'sync' ? SELF : sourceKey(e.sourceUuid, e.sourceNumber)
        membership.admit(e.groupId, e, () =>
          ingest.handle(e.groupId, e.body, {
            from: { uuid: e.sourceUuid, number: e.sourceNumber },
            source,
            attachments: e.attachments ?? [],
          }),
        )
      } else if (e.type === 'group-update') {
        metrics.groupUpdates.inc()
        library?.onGroupUpdate(e.groupId, e.sourceNumber)
      } else metrics.eventsSkipped.inc({ reason: e.reason })
    },
    onRecoveryRequired: (error: BroadcastRecoveryRequiredError) => {
      logger.error({ err: error }, 'transport history at risk; asking browsers for snapshots (4409)')
      for (const doc of docs.values())
        if (error.groupIds.includes(doc.groupId))
          doc.closeSockets(CLOSE_CODES.HISTORY_AT_RISK, 'history at risk; send a full snapshot')
    },
    onReconnect: () => metrics.streamReconnects.inc(),
    logger,
  })
  closers.push(() => events.stop())

  // Members change (someone joins or leaves): the capability rule reads the list again now and then.
  const membersTimer = setInterval(() => {
    backend
      .listGroups()
      .then(setMembers, (error: unknown) =>
        logger.debug({ err: error }, 'listGroups for the member lists failed; keeping the last ones'),
      )
  }, config.membersRefreshMs)
  membersTimer.unref()
  closers.push(() => clearInterval(membersTimer))

  let boundPort = config.listen.port
  const ops = createOpsHandler(
    {
      ready: () => ready,
      daemonReachable: () =>
        backend.check(AbortSignal.timeout(2000)).then(
          () => true,
          () => false,
        ),
      eventsStreamUp: () => events.up,
      signal: () => ({ state: reach.state, since: reach.since, unsentEnvelopes: unsentEnvelopes() }),
    },
    metrics,
  )
  const api = createDocsApi({
    library,
    allowedOrigins: config.allowedOrigins,
    bind: () => ({ host: config.listen.host, port: boundPort }),
    ready: () => ready,
  })
  const { server, wss } = createWsServer({
    allowedOrigins: config.allowedOrigins,
    onRefusedOrigin: (origin) =>
      logger.warn(
        { origin, allowed: config.allowedOrigins },
        `refused a page from ${origin}: add it to E2E_COL_ALLOWED_ORIGINS to let it connect`,
      ),
    maxFrameBytes: config.browser.maxFrameBytes,
    isDocument: (docId) => ready && docs.has(docId),
    hasRoom: (docId) => (docs.get(docId)?.sessionCount ?? Infinity) < config.browser.maxConnectionsPerDoc,
    onConnection: (ws: WebSocket, docId: string) => {
      const doc = docs.get(docId)
      if (doc === undefined) return ws.close(CLOSE_CODES.POLICY_VIOLATION)
      const session = createBrowserSession(ws, docId, (s, env, frame) => doc.fromBrowser(s, env, frame))
      doc.attach(session)
      metrics.connections.inc({ doc: docId })
      ws.on('error', (error) => logger.debug({ err: error }, 'browser socket error'))
      ws.on('close', () => {
        doc.detach(session)
        metrics.connections.dec({ doc: docId })
      })
    },
    chats: {
      admit: (chatId, role, req, group) => (ready ? chats.admit(chatId, role, req, group) : 404),
      onConnection: (ws, chatId, role, req) => chats.onConnection(ws, chatId, role, req),
    },
    onHttp: (req, res) =>
      api.handles(new URL(req.url ?? '/', 'http://sidecar').pathname) ? api.handle(req, res) : ops(req, res),
  })

  let stopAccepting: Promise<void> = Promise.resolve()
  closers.push(async () => {
    server.closeAllConnections()
    await stopAccepting
  })
  // The top of the stack: stop admitting, flush the queues (bounded), close every socket.
  let shutdownReason: 'requested' | 'store-failed' | 'start-failed' = 'requested'
  closers.push(async () => {
    const started = clock.now()
    ready = false
    stopAccepting = new Promise<void>((resolve) => server.close(() => resolve()))
    // After a store failure nothing more is sent: it could not be remembered.
    if (fatalError === undefined) await docs.drain(config.shutdownFlushMs)
    stopped = true
    // Counts only: what is still queued after the bounded flush is dropped (browsers replay it).
    library?.close()
    logger.info(
      {
        reason: shutdownReason,
        unsentBytes: docs.queuedBytes(),
        sockets: wss.clients.size,
        flushMs: clock.now() - started,
      },
      'sidecar shutting down: queues flushed, closing sockets (1001), the events stream and the store',
    )
    docs.close(CLOSE_CODES.GOING_AWAY, 'sidecar shutting down')
    chats.close(CLOSE_CODES.GOING_AWAY, 'sidecar shutting down')
    for (const ws of wss.clients) ws.terminate()
  })
  function stop(): Promise<void> {
    if (stopping === undefined) shutdownReason = fatalError === undefined ? 'requested' : 'store-failed'
    return (stopping ??= closers.unwind())
  }

  try {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(config.listen.port, config.listen.host, () => {
          server.off('error', reject)
          resolve()
        })
      })
    } catch (error) {
      throw new SidecarError(
        'SIDECAR_LISTEN_FAILED',
        `cannot listen on ${config.listen.host}:${config.listen.port} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        { cause: error },
      )
    }
    if (fatalError !== undefined) throw fatalError
  } catch (error) {
    shutdownReason = 'start-failed'
    await (stopping ??= closers.unwind()).catch(() => undefined)
    throw error
  }
  const port = (server.address() as AddressInfo).port
  boundPort = port
  ready = true
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host
  const url = `http://${host}:${port}`
  logger.info(
    { url, documents: config.documents.length, store: store.path, signalCliVersion: facts.version ?? 'unavailable' },
    `e2e-col sidecar ready on ${url}`,
  )
  docs.resumeKept()
  // Announce what this sidecar reads (members answer with theirs), then catch up on what the group
  // said while it was down: members answer with what it lacks. Both small: one body per document.
  for (const doc of docs.values()) doc.capabilities.hello()
  logger.info(
    { url, documents: docs.size, store: store.path, signalCliVersion: facts.version ?? 'unavailable' },
    `e2e-col sidecar ready on ${url}`,
  )
  // Catch up on what the group said while this sidecar was down: members answer with what we lack.
  if (config.replica.syncOnStart) for (const doc of docs.values()) doc.askGroup()
  // Someone may have removed this account from a document while the sidecar was down.
  void library?.refresh().catch((error: unknown) => logger.warn({ err: error }, 'checking the stored documents failed'))
  return { url, port, storePath: store.path, close: stop }
}
