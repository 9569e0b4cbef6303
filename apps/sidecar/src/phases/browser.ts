/**
 * Phase 7, the browser server, opened last: WebSocket upgrades for documents and chats, the
 * documents API, and the ops endpoints, on one listener. Its closer is the top of the stack: stop
 * admitting, flush the send queues (bounded), close every socket with 1001, then the listener.
 * `listen` is the start's last step; a listen that fails unwinds through that closer too.
 */
import { randomInt } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { CLOSE_CODES } from '@e2e-col/protocol'
import type { WebSocket } from 'ws'
import type { MakeSession } from '../browser/sessions.ts'
import { createWsServer } from '../browser/ws-server.ts'
import { peerMayAsk } from '../listen-scope.ts'
import { UNLINKED_NOTICE } from '../ops/linked-device.ts'
import { SidecarError } from '../errors.ts'
import { createHistoryApi } from '../history/api.ts'
import { createReviewApi, type AgentSuggestion } from '../review/api.ts'
import { createMentionMessages } from '../review/mention-messages.ts'
import { settleConcurrentDecisions } from '../review/concurrent-decisions.ts'
import type { SignalDocumentMethods } from '@e2e-col/signal-cli'
import type { AgentTokens } from '../review/agent-tokens.ts'
import { authorsView } from '../authorship/authors-view.ts'
import { restoredFrom } from '../history/restore-record.ts'
import { createDocsApi } from '../library/api.ts'
import { LibraryError } from '../http/library-error.ts'
import type { DocumentLibrary } from '../library/library.ts'
import type { Approvals } from '../approval/approvals.ts'
import { reviewedOf } from './approval.ts'
import type { Served } from './documents.ts'
import type { Lifecycle } from './lifecycle.ts'
import type { HttpHandler } from './ops.ts'
import type { Basics, Phase } from './phase.ts'

export interface BrowserServer {
  /** Listens on the configured address. @throws SidecarError SIDECAR_LISTEN_FAILED */
  listen(): Promise<{ url: string; port: number }>
}

export interface BrowserInput {
  readonly life: Lifecycle
  readonly served: Served
  readonly ops: HttpHandler
  readonly makeSession: MakeSession
  /** The review feature's agent tokens (review/agent-tokens.ts). */
  readonly agentTokens?: AgentTokens
  /** The approval from the phone (approval/): told of each agent token's suggestion. */
  readonly approvals?: Approvals | undefined
}

/** Number → shown name of a document's members, as the library lists them (empty without a library). */
async function memberNames(
  library: DocumentLibrary | undefined,
  docId: string,
): Promise<Map<string, string | undefined>> {
  const listed = await library?.list()
  const doc = listed?.documents.find((d) => d.docId === docId)
  // Told apart as everywhere (people/told-apart.ts): a name someone else also has is not shown alone.
  return new Map((doc?.members ?? []).map((m) => [m.number, m.shown === m.number ? m.name : (m.shown ?? m.name)]))
}

/**
 * Number → told-apart name of the document's members, then of everyone in the contacts (someone
 * who left the group since); a number with no name at all is left out (shown as itself).
 */
async function peopleNames(library: DocumentLibrary | undefined, docId: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  const people = library === undefined ? [] : await library.contacts().catch(() => [])
  for (const p of people) if (p.shown !== p.number) out.set(p.number, p.shown)
  for (const [number, name] of await memberNames(library, docId).catch(() => new Map<string, string | undefined>()))
    if (name !== undefined) out.set(number, name)
  return out
}

const notServed = () => new LibraryError('DOCS_UNKNOWN_DOCUMENT', 'this sidecar does not serve that document')

/** `GET /v1/docs/<docId>/not-shared`: the document's view, people told apart (decisions/0032). @throws LibraryError */
async function notSharedOf(served: Served, docId: string): Promise<unknown> {
  if (!served.docs.has(docId)) throw notServed()
  const names = await peopleNames(served.library, docId)
  const view = served.docs.notShared(docId, (number) => names.get(number) ?? number)
  if (view === undefined) throw notServed()
  return view
}

/** The told-apart name of the person whose verified client id `clientId` is ("you" for this account). */
async function personOf(served: Served, docId: string, clientId: number): Promise<string | undefined> {
  const author = served.docs
    .get(docId)
    ?.content.authors()
    .find((e) => e.clientId === clientId && 'verified' in e && e.verified === true)?.author
  if (author?.number === undefined) return undefined
  if (author.number === served.self.number) return 'you'
  return (await memberNames(served.library, docId)).get(author.number) ?? author.number
}

const plainName = (m: { name?: string | undefined }) => m.name?.trim().toLowerCase()

/**
 * Whom a comment can mention: the document's other members as listed, by their told-apart name
 * ("@Bob (not in your contacts, …0102)") and by their plain name when no other member has it.
 */
async function mentionable(
  library: DocumentLibrary | undefined,
  docId: string,
  self: string | undefined,
): Promise<{ number: string; name?: string }[]> {
  const listed = await library?.list()
  const members = (listed?.documents.find((d) => d.docId === docId)?.members ?? []).filter((m) => m.number !== self)
  const unique = (m: { name?: string | undefined }) => members.filter((o) => plainName(o) === plainName(m)).length === 1
  return members.flatMap((m) => [
    { number: m.number, ...(m.shown === undefined || m.shown === m.number ? {} : { name: m.shown }) },
    ...(m.name === undefined || m.name === m.shown || !unique(m) ? [] : [{ number: m.number, name: m.name }]),
  ])
}

/** The mention messages (decision 0038), with a backend that can send to one person. */
function mentionsFor(b: Basics, library: DocumentLibrary | undefined) {
  const { backend } = b
  const notify = (backend as Partial<Pick<SignalDocumentMethods, 'notifyPerson'>>).notifyPerson
  if (notify === undefined) return {}
  const mentioned = createMentionMessages({
    send: async (recipient, text) => void (await notify.call(backend, recipient, text)),
    titleOf: async (docId) => (await library?.list())?.documents.find((d) => d.docId === docId)?.title,
    now: () => b.clock.now(),
    logger: b.logger,
  })
  return { mentioned }
}

/** The review API (suggestions, comments, agent tokens) over the served documents' replicas. */
function reviewApiFor(b: Basics, i: BrowserInput, bind: () => { host: string; port: number }) {
  return createReviewApi({
    ...mentionsFor(b, i.served.library),
    reviewed: (docId) => reviewedOf(i.served, docId),
    ...(i.approvals === undefined ? {} : { agentSuggested: (s: AgentSuggestion) => i.approvals?.suggested(s) }),
    ...(i.agentTokens === undefined ? {} : { tokens: i.agentTokens }),
    personOf: (docId, clientId) => personOf(i.served, docId, clientId),
    members: (docId) => mentionable(i.served.library, docId, i.served.self.number),
    now: () => b.clock.now(),
    random: () => randomInt(2 ** 32),
    allowedOrigins: b.config.allowedOrigins,
    bind,
    ready: i.life.ready,
  })
}

/** Every document in memory settles this account's part of concurrent decisions (review/concurrent-decisions.ts). */
function watchDecisions(b: Basics, served: Served): void {
  const ports = {
    reviewed: (docId: string) => reviewedOf(served, docId),
    acceptances: served.acceptances,
    defer: (fn: () => void) => void b.clock.setTimeout(fn, 0),
    logger: b.logger,
  }
  served.docs.onLoad((doc) => {
    const replica = served.histories.replicaOf(doc.docId)
    return replica === undefined ? undefined : settleConcurrentDecisions(ports, doc.docId, replica.doc)
  })
}

export function browserServer(b: Basics, i: BrowserInput): Phase<BrowserServer> {
  const { config, metrics, logger, clock } = b
  const { life } = i
  const { docs, chats, library } = i.served
  let boundPort = config.listen.port
  const api = createDocsApi({
    library,
    allowedOrigins: config.allowedOrigins,
    bind: () => ({ host: config.listen.host, port: boundPort }),
    ready: life.ready,
    notice: () => (b.links.unlinked ? UNLINKED_NOTICE : undefined),
    authors: async (docId) => {
      const doc = docs.get(docId)
      if (doc === undefined)
        throw new LibraryError('DOCS_UNKNOWN_DOCUMENT', 'this sidecar does not serve that document')
      // Restores are recorded in the document: their letters are shown as restored, from which version.
      const replica = i.served.histories.replicaOf(docId)
      const restores = replica === undefined ? new Map<number, number>() : restoredFrom(replica.doc)
      return authorsView(doc.content.authors(), await memberNames(library, docId), i.served.self, restores)
    },
    notShared: (docId) => notSharedOf(i.served, docId),
  })
  const historyApi = createHistoryApi({
    histories: i.served.histories,
    editOf: (docId) => {
      // Looked up again at the edit: the request may outlive the document in memory (decisions/0040).
      // Loaded first: the history API reads the document's history next.
      return docs.get(docId) === undefined ? undefined : (update) => docs.get(docId)?.content.edit(update) ?? false
    },
    roleOf: (docId) => docs.get(docId)?.roles.self(),
    left: (docId) => i.served.histories.left(docId),
    // Names are a nicety (told apart as everywhere: people/told-apart.ts); a daemon that cannot list contacts leaves them null.
    names: async () => {
      const people = library === undefined ? [] : await library.contacts().catch(() => [])
      // Someone with no name at all is shown as their number: the version says number and no name.
      return new Map(people.map((p) => [p.number, p.shown === p.number ? p.name : (p.shown ?? p.name)]))
    },
    you: () => i.served.histories.you(),
    allowedOrigins: config.allowedOrigins,
    bind: () => ({ host: config.listen.host, port: boundPort }),
    ready: life.ready,
  })
  const reviewApi = reviewApiFor(b, i, () => ({ host: config.listen.host, port: boundPort }))
  watchDecisions(b, i.served)
  const { server, wss } = createWsServer({
    allowedOrigins: config.allowedOrigins,
    onRefusedOrigin: (origin) =>
      logger.warn(
        { origin, allowed: config.allowedOrigins },
        `refused a page from ${origin}: add it to E2E_COL_ALLOWED_ORIGINS to let it connect`,
      ),
    maxFrameBytes: config.browser.maxFrameBytes,
    isDocument: (docId) => life.ready() && docs.has(docId),
    hasRoom: (docId) => (docs.loaded(docId)?.pages.count ?? 0) < config.browser.maxConnectionsPerDoc,
    onConnection: (ws: WebSocket, docId: string) => {
      const doc = docs.get(docId)
      if (doc === undefined) return ws.close(CLOSE_CODES.POLICY_VIOLATION)
      const session = i.makeSession(ws, docId, (s, env, frame) => doc.pages.receive(s, env, frame))
      doc.pages.attach(session)
      metrics.connections.inc({ doc: docId })
      ws.on('error', (error) => logger.debug({ err: error }, 'browser socket error'))
      ws.on('close', () => {
        doc.pages.detach(session)
        metrics.connections.dec({ doc: docId })
      })
    },
    chats: {
      admit: (chatId, role, req, group) => (life.ready() ? chats.admit(chatId, role, req, group) : 404),
      onConnection: (ws, chatId, role, req) => chats.onConnection(ws, chatId, role, req),
    },
    admit: peerMayAsk,
    onHttp: (req, res) => {
      const path = new URL(req.url ?? '/', 'http://sidecar').pathname
      if (historyApi.handles(path)) historyApi.handle(req, res)
      else if (reviewApi.handles(path)) reviewApi.handle(req, res)
      else if (api.handles(path)) api.handle(req, res)
      else i.ops(req, res)
    },
  })

  async function shutdown(): Promise<void> {
    const started = clock.now()
    life.closing()
    const stopAccepting = new Promise<void>((resolve) => server.close(() => resolve()))
    // After a store failure nothing more is sent: it could not be remembered.
    if (life.failure() === undefined) await docs.drain(config.shutdownFlushMs)
    life.halt()
    // Counts only: what is still queued after the bounded flush is dropped (browsers replay it).
    library?.close()
    logger.info(
      {
        reason: life.reason(),
        unsentBytes: docs.queuedBytes(),
        sockets: wss.clients.size,
        flushMs: clock.now() - started,
      },
      'sidecar shutting down: queues flushed, closing sockets (1001), the events stream and the store',
    )
    docs.close(CLOSE_CODES.GOING_AWAY, 'sidecar shutting down')
    chats.close(CLOSE_CODES.GOING_AWAY, 'sidecar shutting down')
    for (const ws of wss.clients) ws.terminate()
    server.closeAllConnections()
    await stopAccepting
  }

  async function listen(): Promise<{ url: string; port: number }> {
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
    boundPort = (server.address() as AddressInfo).port
    const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host
    return { url: `http://${host}:${boundPort}`, port: boundPort }
  }

  return { part: { listen }, close: shutdown }
}
