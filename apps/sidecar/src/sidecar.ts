/**
 * Composes one running sidecar: daemon checks, the events stream, one send queue per document,
 * the receive path, and the HTTP/WebSocket listener, opened last. A sidecar never runs
 * half-started: any startup failure undoes what was opened and rejects with a SidecarError.
 * @see docs/contract.md §4
 */
import type { AddressInfo } from 'node:net'
import type { Envelope } from '@e2e-col/protocol'
import type { WebSocket } from 'ws'
import { createSession, CLOSE, type Session } from './browser/session.ts'
import { createWsServer } from './browser/ws-server.ts'
import { systemClock, type Clock } from './clock.ts'
import type { SidecarConfig } from './config.ts'
import { BroadcastRecoveryRequiredError, SidecarError } from './errors.ts'
import { createOpsHandler } from './ops/health.ts'
import { createLogger, type Logger } from './ops/logger.ts'
import { createMetrics } from './ops/metrics.ts'
import { createIngest } from './receive/ingest.ts'
import { createSendQueue, type SendQueue } from './send/queue.ts'
import { createTokenBucket } from './send/token-bucket.ts'
import type { SignalBackend, SignalEventStream } from './signal/backend.ts'
import { runEventsLoop } from './signal/events-stream.ts'
import { createHttpSignalBackend } from './signal/http-backend.ts'
import { checkDaemon } from './startup.ts'

/** A started sidecar. */
export interface RunningSidecar {
  /** `http://HOST:PORT`; browsers connect to `ws://HOST:PORT/v1/docs/<docUUID>`. */
  url: string
  port: number
  /** Stops accepting, flushes the send queues (bounded), closes WebSockets with 1001, closes the stream. */
  close(): Promise<void>
}

export interface SidecarDeps {
  logger?: Logger
  /** Another backend (tests, or one that can assert lost history); the HTTP backend by default. */
  backend?: SignalBackend
  clock?: Clock
}

interface DocumentState {
  docId: string
  groupId: string
  sessions: Set<Session>
  queue: SendQueue
}

/**
 * Starts a sidecar.
 * @throws SidecarError with the code of the startup step that failed (see exitCodeFor).
 */
export async function startSidecar(config: SidecarConfig, deps: SidecarDeps = {}): Promise<RunningSidecar> {
  const logger = deps.logger ?? createLogger(config.logLevel)
  const clock = deps.clock ?? systemClock
  const metrics = createMetrics()
  const backend = deps.backend ?? createHttpSignalBackend({ url: config.signal.url, account: config.signal.account, timeoutMs: config.signal.rpcTimeoutMs, streamIdleMs: config.signal.streamIdleMs })
  const sidecarId = clock.newUuid()
  let batchSeq = 0

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
    throw error
  }

  const docs = new Map<string, DocumentState>()
  const closeDocument = (doc: DocumentState, code: number, reason: string) => {
    for (const s of doc.sessions) s.close(code, reason)
  }
  for (const { docId, groupId } of config.documents) {
    const doc: DocumentState = { docId, groupId, sessions: new Set(), queue: undefined as unknown as SendQueue }
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
      metrics,
      logger,
    })
    docs.set(docId, doc)
  }
  const docsByGroup = new Map(config.documents.map((d) => [d.groupId, d.docId]))

  const ingest = createIngest({
    docsByGroup,
    maxFrameBytes: config.browser.maxFrameBytes,
    reassembly: config.reassembly,
    dedup: config.dedup,
    now: clock.now,
    deliver: (docId, frame) => {
      for (const s of docs.get(docId)?.sessions ?? []) s.send(frame)
    },
    metrics,
    logger,
  })

  const events = runEventsLoop(first, firstAbort, {
    backend,
    policy: { baseMs: config.events.reconnectBaseMs, maxMs: config.events.reconnectMaxMs },
    rng: clock.rng,
    sleep: clock.sleep,
    onEvent: (e) => {
      if (e.type === 'message') ingest.handle(e.groupId, e.body)
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
    for (const other of doc.sessions) if (other !== session) other.send(frame)
    ingest.markSent(doc.docId, env.senderId, env.messageId)
    const queued = doc.queue.enqueue({ frame, messageId: env.messageId, owner: { ack: (id) => session.ack(id), reject: (id, code, message) => session.refuse(code, message, { messageId: id, strike: false }) } })
    if (!queued) session.refuse('SIDECAR_QUEUE_FULL', 'the send queue of this document is full; retry later', { messageId: env.messageId, strike: false })
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
      const session = createSession({
        ws, docId, sidecarId,
        maxFrameBytes: config.browser.maxFrameBytes,
        abuseLimit: config.browser.abuseLimit,
        rate: createTokenBucket({ ratePerSecond: config.browser.framesPerSecond, burst: config.browser.frameBurst, now: clock.now() }),
        now: clock.now,
        newMessageId: clock.newMessageId,
        onEnvelope,
        metrics,
      })
      doc.sessions.add(session)
      metrics.connections.inc({ doc: docId })
      ws.on('error', (error) => logger.debug({ err: error }, 'browser socket error'))
      ws.on('close', () => {
        doc.sessions.delete(session)
        metrics.connections.dec({ doc: docId })
      })
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
    await Promise.all([...docs.values()].map((d) => d.queue.drain(config.shutdownFlushMs)))
    for (const doc of docs.values()) {
      doc.queue.close()
      closeDocument(doc, CLOSE.goingAway, 'sidecar shutting down')
    }
    for (const ws of wss.clients) ws.terminate()
    await events.stop()
    await backend.close()
    server.closeAllConnections()
    await closing
  }

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
  ready = true
  const port = (server.address() as AddressInfo).port
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host
  const url = `http://${host}:${port}`
  logger.info({ url, documents: config.documents.length, signalCliVersion: facts.version ?? 'unavailable' }, `e2e-col sidecar ready on ${url}`)

  let closed: Promise<void> | undefined
  return { url, port, close: () => (closed ??= shutdown()) }
}
