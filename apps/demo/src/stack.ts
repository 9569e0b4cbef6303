/**
 * The embedded demo stack (Node only): the toy signal-cli daemon with two accounts and one group
 * (the demo document, shared by both), one sidecar per account, and the Vite dev server for the
 * pages. More documents are made from the home page while it runs. `npm start` runs it; the browser
 * tests start it on free ports.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { createServer, type ViteDevServer } from 'vite'

/** The demo's one document. Fixed, so links (and what browsers stored) survive a restart. */
export const DEMO_DOC_ID = '6f1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e5f'
/** The demo group's id: 32 bytes derived from a fixed label, base64 like real Signal group ids. */
export const DEMO_GROUP_ID = createHash('sha256').update('e2e-col demo group').digest('base64')

/** The demo document's title (its group's name). */
export const DEMO_TITLE = 'Welcome to e2e-col'

/** A demo participant. */
export type Who = 'alice' | 'bob'

const PEOPLE: Record<Who, { name: string; number: string }> = {
  // Numbers from the 555-01xx range, reserved for fiction.
  alice: { name: 'Alice', number: '+15555550101' },
  bob: { name: 'Bob', number: '+15555550102' },
}

/** Options of {@link startDemoStack}. */
export interface DemoStackOptions {
  /** Vite's port; 0 = any free port. Default 5173 (the next free one if taken). */
  readonly vitePort?: number
  /** Alice's and Bob's sidecar ports; 0 = any. Default 7601 and 7602 (any free one if taken). */
  readonly sidecarPorts?: readonly [number, number]
  /**
   * Start with the demo document shared by Alice and Bob (default true). Without it the toy has no
   * group and the sidecars no E2E_COL_DOCUMENTS: every document is made from the home page.
   */
  readonly demoDocument?: boolean
  /**
   * More page origins the sidecars accept besides the demo's own (`http://127.0.0.1:3000`): an app
   * of the person's own on another port. `npm start` reads them from E2E_COL_ALLOWED_ORIGINS.
   */
  readonly extraOrigins?: readonly string[]
  /** Extra sidecar settings (environment-variable names), e.g. `E2E_COL_LOG_LEVEL`. */
  readonly sidecarEnv?: Readonly<Record<string, string>>
  /** Serve the page with Vite (default true; Node-only tests turn it off). */
  readonly page?: boolean
  /**
   * More accounts on the toy, with no sidecar and no profile name yet: in nobody's contacts. Tests
   * play them over JSON-RPC (a stranger who picks a contact's name with `updateProfile`).
   */
  readonly strangers?: readonly string[]
  /** The toy's fault switches (`stack.toy.faults`), for tests of a daemon without network. Default off. */
  readonly faults?: boolean
  /**
   * Folder for the sidecars' local state (one subfolder per person). Default: a fresh temporary
   * folder, deleted by {@link DemoStack.close}.
   */
  readonly dataDir?: string
}

/** A running demo stack. */
export interface DemoStack {
  readonly docId: string
  readonly toy: ToySignal
  /** The page link for a participant (their page through their own sidecar); `rich` = the rich-text page. */
  link(who: Who, page?: 'text' | 'rich'): string
  /** The home page link for a participant: their documents and invitations. */
  homeLink(who: Who): string
  /** A participant's number. */
  number(who: Who): string
  /** The sidecar's WebSocket base URL, e.g. `ws://127.0.0.1:7601`. */
  sidecarUrl(who: Who): string
  /** Stops one sidecar (its browser goes offline). */
  stopSidecar(who: Who): Promise<void>
  /** Starts a stopped sidecar again on the same port. */
  startSidecar(who: Who): Promise<void>
  /** Stops everything; safe to call twice. */
  close(): Promise<void>
}

/**
 * Whether the toy's groups file (kept by an earlier run) holds group `id`. A file that cannot be
 * read says no here: the toy itself then says what is wrong with it.
 */
function keepsGroup(groupsFile: string | undefined, id: string): boolean {
  if (groupsFile === undefined || !existsSync(groupsFile)) return false
  try {
    const kept: unknown = JSON.parse(readFileSync(groupsFile, 'utf8'))
    return (
      Array.isArray(kept) && kept.some((g: unknown) => typeof g === 'object' && g !== null && 'id' in g && g.id === id)
    )
  } catch {
    return false
  }
}

/** Starts the toy daemon, Vite and both sidecars; resolves once all listen. */
export async function startDemoStack(options: DemoStackOptions = {}): Promise<DemoStack> {
  const cleanups: (() => Promise<void>)[] = []
  const closeAll = async (): Promise<void> => {
    for (let c = cleanups.pop(); c !== undefined; c = cleanups.pop()) await c()
  }
  try {
    let dataDir = options.dataDir
    if (dataDir === undefined) {
      const temporary = mkdtempSync(join(tmpdir(), 'e2e-col-demo-'))
      cleanups.push(async () => rmSync(temporary, { recursive: true, force: true }))
      dataDir = temporary
    }
    const stateRoot = dataDir
    const demoDocument = options.demoDocument !== false
    // With a lasting folder the toy's groups last too: documents made on the home page are still
    // shared after `npm start` is run again. The toy writes them before it answers a change, so a
    // stop of any kind (Ctrl-C, whose relay kills the process within milliseconds) loses none.
    const groupsFile = options.dataDir === undefined ? undefined : join(stateRoot, 'toy-groups.json')
    const strangers = options.strangers ?? []
    const toy = await createToySignal({
      ...(groupsFile === undefined ? {} : { groupsFile }),
      accounts: [PEOPLE.alice.number, PEOPLE.bob.number, ...strangers],
      // Seeded on the first run only: from then on the kept groups say its name (a rename lasts).
      groups:
        demoDocument && !keepsGroup(groupsFile, DEMO_GROUP_ID)
          ? [{ name: DEMO_TITLE, members: [PEOPLE.alice.number, PEOPLE.bob.number], id: DEMO_GROUP_ID }]
          : [],
      names: {
        [PEOPLE.alice.number]: PEOPLE.alice.name,
        [PEOPLE.bob.number]: PEOPLE.bob.name,
      },
      // Alice and Bob have each other in their contacts, as two people who share documents do.
      contacts: {
        [PEOPLE.alice.number]: { [PEOPLE.bob.number]: PEOPLE.bob.name },
        [PEOPLE.bob.number]: { [PEOPLE.alice.number]: PEOPLE.alice.name },
      },
      // As on Signal: someone you share no document with yet is invited, and accepts.
      pendingInvites: true,
      faults: options.faults === true,
    })
    cleanups.push(() => toy.close())

    let vitePort = 0
    if (options.page !== false) {
      const vite = await startVite(options.vitePort ?? 5173)
      cleanups.push(() => vite.close())
      const address = vite.httpServer?.address()
      if (address === null || address === undefined || typeof address === 'string')
        throw new Error('Vite is not listening on TCP')
      vitePort = (address as AddressInfo).port
    }
    const pageOrigin = `http://127.0.0.1:${vitePort}`

    const [alicePort, bobPort] = options.sidecarPorts ?? [7601, 7602]
    const ports: Record<Who, number> = { alice: alicePort, bob: bobPort }
    const running: Partial<Record<Who, RunningSidecar>> = {}

    const start = async (who: Who): Promise<void> => {
      const env = (port: number) => ({
        SIGNAL_CLI_URL: toy.url,
        SIGNAL_CLI_ACCOUNT: PEOPLE[who].number,
        ...(demoDocument ? { E2E_COL_DOCUMENTS: `${DEMO_DOC_ID}=${DEMO_GROUP_ID}` } : {}),
        E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
        E2E_COL_LISTEN: `127.0.0.1:${port}`,
        E2E_COL_DATA_DIR: join(stateRoot, who),
        E2E_COL_ALLOWED_ORIGINS: [
          ...(options.page === false ? [] : [pageOrigin, `http://localhost:${vitePort}`]),
          ...(options.extraOrigins ?? []),
        ].join(','),
        // The toy has no rate limit; a few sends per second keep typing snappy.
        E2E_COL_SENDS_PER_SECOND: '5',
        E2E_COL_SEND_BURST: '20',
        E2E_COL_LOG_LEVEL: 'warn',
        ...options.sidecarEnv,
      })
      let sidecar: RunningSidecar
      try {
        sidecar = await startSidecar(loadConfig(env(ports[who])))
      } catch (error) {
        // A default port may be taken; any free port will do, the printed links carry it.
        if ((error as { code?: string }).code !== 'SIDECAR_LISTEN_FAILED' || ports[who] === 0) throw error
        sidecar = await startSidecar(loadConfig(env(0)))
      }
      ports[who] = sidecar.port
      running[who] = sidecar
    }
    const stop = async (who: Who): Promise<void> => {
      const sidecar = running[who]
      delete running[who]
      await sidecar?.close()
    }
    await start('alice')
    cleanups.push(() => stop('alice'))
    await start('bob')
    cleanups.push(() => stop('bob'))

    const sidecarUrl = (who: Who): string => `ws://127.0.0.1:${ports[who]}`
    return {
      docId: DEMO_DOC_ID,
      toy,
      sidecarUrl,
      // Written out rather than URLSearchParams-encoded, so the printed link stays readable.
      link: (who, page = 'text') =>
        `${pageOrigin}/${page === 'rich' ? 'rich.html' : ''}?name=${PEOPLE[who].name}&sidecar=${sidecarUrl(who)}&doc=${DEMO_DOC_ID}`,
      homeLink: (who) => `${pageOrigin}/?name=${PEOPLE[who].name}&sidecar=${sidecarUrl(who)}`,
      number: (who) => PEOPLE[who].number,
      stopSidecar: stop,
      startSidecar: start,
      close: closeAll,
    }
  } catch (error) {
    await closeAll()
    throw error
  }
}

async function startVite(port: number): Promise<ViteDevServer> {
  const server = await createServer({
    configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
    logLevel: 'warn',
    server: { host: '127.0.0.1', port, strictPort: false },
  })
  await server.listen()
  return server
}
