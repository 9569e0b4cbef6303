/**
 * Composes one running sidecar as an ordered list of phases: the store, the daemon checks,
 * membership, the documents (with the chat relay and the library), the approval from the phone,
 * receive, the ops endpoints, and
 * the browser server, opened last. Each phase returns its part and its closer, and reads only the
 * parts of the phases before it. A sidecar never runs half-started: each closer goes onto one stack
 * as its phase returns, and a failed start unwinds that stack and rejects with a SidecarError; so
 * does a shutdown.
 * @see docs/sidecar.md §4, docs/decisions/0014-sidecar-composition.md
 */
import { createHttpSignalBackend, type SignalBackend } from '@e2e-col/signal-cli'
import { sessionMaker } from './browser/sessions.ts'
import { systemClock, type Clock } from './clock.ts'
import { createCloserStack, type CloserStack } from './closers.ts'
import type { SidecarConfig } from './config.ts'
import type { StoreError } from './errors.ts'
import { listenWarning } from './listen-scope.ts'
import { withShownNames } from './people/shown-names.ts'
import { installNodeCodecs } from './node-codecs.ts'
import { createLinkWatch, watchLink } from './ops/linked-device.ts'
import { checkSignalLimits } from './signal-limits.ts'
import { createLogger, type Logger } from './ops/logger.ts'
import { createMetrics } from './ops/metrics.ts'
import { approvalPhase } from './phases/approval.ts'
import { browserServer } from './phases/browser.ts'
import { checkTheDaemon } from './phases/daemon.ts'
import { serveDocuments, type Served } from './phases/documents.ts'
import { createLifecycle, type Lifecycle } from './phases/lifecycle.ts'
import { followMembership } from './phases/membership.ts'
import { opsEndpoints } from './phases/ops.ts'
import type { Basics, Phase } from './phases/phase.ts'
import { startReceive } from './phases/receive.ts'
import { openStore } from './phases/store.ts'

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

function basics(config: SidecarConfig, deps: SidecarDeps): Basics {
  const clock = deps.clock ?? systemClock
  const logger = deps.logger ?? createLogger(config.logLevel)
  // Every account call is watched: a device Signal removed is noticed wherever it shows first.
  const links = createLinkWatch({ logger, now: () => clock.now() })
  // Names and titles from Signal are untrusted: every listing's names are made safe to show here,
  // the one place they enter (shown-names.ts).
  const backend = withShownNames(
    watchLink(
      deps.backend ??
        createHttpSignalBackend({
          url: config.signal.url,
          account: config.signal.account,
          timeoutMs: config.signal.rpcTimeoutMs,
          streamIdleMs: config.signal.streamIdleMs,
          // Everything the sidecar sends is machine traffic: it never wakes a phone (documents.md §4).
          noUrgent: true,
        }),
      links,
    ),
  )
  return { config, logger, clock, metrics: createMetrics(), backend, sidecarId: clock.newUuid(), links }
}

/** Keeps a phase's closer on the stack and hands its part on. */
function opened<T>(closers: CloserStack, phase: Phase<T>): T {
  closers.push(phase.close)
  return phase.part
}

/**
 * Starts a sidecar.
 * @throws SidecarError with the code of the startup step that failed (see exitCodeFor).
 */
export async function startSidecar(config: SidecarConfig, deps: SidecarDeps = {}): Promise<RunningSidecar> {
  installNodeCodecs()
  checkSignalLimits(config)
  const b = basics(config, deps)
  const closers = createCloserStack()
  closers.push(() => b.backend.close())
  let life: Lifecycle | undefined
  try {
    // The store comes first: a sidecar never runs without it (exit 9, before any daemon call).
    const stored = opened(closers, openStore(b))
    life = createLifecycle({ closers, storePath: stored.store.path, logger: b.logger, onFatal: deps.onFatal })
    const daemon = opened(closers, await checkTheDaemon(b))
    const membership = opened(closers, followMembership(b, daemon.facts))
    const makeSession = sessionMaker({ ...b, browser: config.browser })
    const served = opened(closers, serveDocuments(b, { ...stored, facts: daemon.facts, life, membership, makeSession }))
    // Before any presence is stamped (the group's, or a page's): a first caret shows a name, not a number.
    await readNamesAtStart(served.library)
    const approvals = opened(closers, approvalPhase(b, served))
    const events = opened(
      closers,
      startReceive(b, {
        daemon,
        membership,
        served,
        receivedIds: stored.store.receivedIds,
        ...(approvals === undefined ? {} : { noteToSelf: (e) => approvals.noteToSelf(e) }),
      }),
    )
    const ops = opened(closers, opsEndpoints(b, { life, events, served }))
    const browser = opened(
      closers,
      browserServer(b, { life, served, ops, makeSession, agentTokens: stored.store.agentTokens, approvals }),
    )
    const { url, port } = await browser.listen()
    const failure = life.failure()
    if (failure !== undefined) throw failure
    ready(b, life, served, { url, storePath: stored.store.path, version: daemon.facts.version })
    return { url, port, storePath: stored.store.path, close: life.stop }
  } catch (error) {
    await (life?.failStart() ?? closers.unwind()).catch(() => undefined)
    throw error
  }
}

/** Longest the start waits for the contacts (a daemon that does not answer them delays no start beyond it), ms. */
export const NAMES_AT_START_MS = 3000

/** Reads the contacts once, waiting at most {@link NAMES_AT_START_MS}; a later read fills them in. */
async function readNamesAtStart(library: Served['library']): Promise<void> {
  if (library === undefined) return
  let timer: ReturnType<typeof setTimeout> | undefined
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, NAMES_AT_START_MS)
  })
  await Promise.race([library.readNames(), bound])
  clearTimeout(timer)
}

/** The sidecar is up: admit browsers, resume kept sends, announce, say so once, catch up. */
function ready(
  b: Basics,
  life: Lifecycle,
  { docs, library }: Pick<Served, 'docs' | 'library'>,
  at: { url: string; storePath: string; version: string | undefined },
): void {
  life.markReady()
  const beyondLoopback = listenWarning(b.config.listen.host)
  if (beyondLoopback !== undefined) b.logger.warn({ listen: b.config.listen }, beyondLoopback)
  // Resume kept sends; the documents in memory announce what this sidecar reads (members answer
  // with theirs) and catch up on what the group said meanwhile. The others do both on first load.
  docs.start()
  b.logger.info(
    { url: at.url, documents: docs.size, store: at.storePath, signalCliVersion: at.version ?? 'unavailable' },
    `e2e-col sidecar ready on ${at.url}`,
  )
  // Someone may have removed this account from a document while the sidecar was down.
  void library
    ?.refresh()
    .catch((error: unknown) => b.logger.warn({ err: error }, 'checking the stored documents failed'))
}
