/**
 * `e2e-col up`: the daemon (supervised, unless config.json points at one the person runs), the page
 * (Vite serving apps/demo on 127.0.0.1) and the sidecar (`e2e-col-sidecar --config config.json`),
 * then the page's URL. Ctrl-C (or SIGTERM) stops the sidecar first (it flushes its queues), then
 * the page, then the daemon. If the sidecar or the page dies, everything stops with exit 10.
 * What it prints is the home page (the person's documents, and where new ones are made).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, openRotatingLog, type SupervisedDaemon } from '@e2e-col/signal-cli-runtime'
import type { UpCommand } from './args.ts'
import { binOf, packageDir, spawnChild, type Child } from './children.ts'
import { asCliError, CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'
import { checkExternalDaemon, startManagedDaemon } from './managed-daemon.ts'
import { openHome, type Opener } from './opener.ts'
import { readConfigFile } from './sidecar-config.ts'
import { defaultStateDir, stateLayout } from './state-dir.ts'
import type { Terminal } from './terminal.ts'

export interface UpDeps {
  readonly term: Terminal
  readonly env: Record<string, string | undefined>
  /** Resolves when the person asks to stop (Ctrl-C); tests resolve it themselves. */
  readonly stopRequested: Promise<string>
  /** Called with the home page URL once everything answers. */
  readonly onReady?: (url: string) => void
  /** Opens the home page in the person's browser (unless `--no-open`). */
  readonly opener: Opener
}

/** Deadlines: Vite and the sidecar start in seconds; a busy machine gets slack. */
const PAGE_START_MS = 60_000
const SIDECAR_START_MS = 120_000
const SIDECAR_STOP_GRACE_MS = 15_000

async function waitForPage(origin: string, page: Child): Promise<void> {
  const deadline = Date.now() + PAGE_START_MS
  const state = { dead: false }
  void page.exited.then(() => {
    state.dead = true
  })
  while (Date.now() < deadline && !state.dead) {
    try {
      const res = await fetch(`${origin}/home.html`, { signal: AbortSignal.timeout(5_000) })
      await res.body?.cancel()
      if (res.status === 200) return
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new CliError(
    'CLI_STACK_FAILED',
    EXIT.stackFailed,
    `the page did not start on ${origin} (${page.tail() || 'no output'})`,
    'if the port is taken, pass --page-port N (0 picks a free one)',
  )
}

/** What to do when the sidecar refuses to start, by its exit code (e2e-col-sidecar --help). */
export function sidecarExitHint(code: number | null, layout: { config: string; root: string }): string {
  switch (code) {
    case 2:
      return `fix the setting it names in ${layout.config}, or run \`e2e-col setup --force\` to write it again`
    case 3:
    case 4:
    case 7:
      return 'the signal-cli daemon does not answer as expected; see daemon.log in the state folder, then run e2e-col up again'
    case 5:
      return 'the daemon does not hold the configured account: run e2e-col setup again (the link may have been removed on the phone)'
    case 6:
      return `the account is no longer in a group that E2E_COL_DOCUMENTS names: remove that document from ${layout.config} (documents made on the home page need no entry there)`
    case 8:
      return 'its address is taken (another e2e-col up?): stop the other one, or pass --listen 127.0.0.1:PORT'
    case 9:
      return `its store in ${layout.root}/sidecar cannot be opened (another sidecar on it, or a full disk)`
    default:
      return 'see the sidecar log named above, then run e2e-col up again'
  }
}

function waitForSidecar(
  sidecar: Child,
  ready: Promise<string>,
  layout: { config: string; root: string },
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new CliError(
            'CLI_STACK_FAILED',
            EXIT.stackFailed,
            `the sidecar did not become ready within ${SIDECAR_START_MS / 1000} s (${sidecar.tail()})`,
            'see the sidecar log named above',
          ),
        ),
      SIDECAR_START_MS,
    )
    void ready.then((url) => {
      clearTimeout(timer)
      resolve(url)
    })
    void sidecar.exited.then(({ code }) => {
      clearTimeout(timer)
      // The sidecar's refusals are one line naming the setting or the daemon problem, and an exit code.
      reject(
        new CliError(
          'CLI_STACK_FAILED',
          EXIT.stackFailed,
          `the sidecar stopped (exit ${code ?? 'signal'}): ${sidecar.tail()}`,
          sidecarExitHint(code, layout),
        ),
      )
    })
  })
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  const out: { promise?: Promise<T>; resolve: (value: T) => void } = { resolve: noop }
  out.promise = new Promise<T>((r) => {
    out.resolve = r
  })
  return out as { promise: Promise<T>; resolve: (value: T) => void }
}

function noop(): void {}

/** Runs until stopped; resolves with the exit code. @throws CliError before everything is up */
export async function runUp(cmd: UpCommand, deps: UpDeps): Promise<number> {
  const { term, env } = deps
  const layout = stateLayout(cmd.stateDir ?? defaultStateDir(env))
  const settings = readConfigFile(
    layout.config,
    `npx e2e-col setup --link${cmd.stateDir === undefined ? '' : ` --state-dir ${JSON.stringify(layout.root)}`}`,
  )
  const stops: (() => Promise<void>)[] = []
  // A Ctrl-C while things are still starting ends the start; what already runs is stopped below.
  const interrupted = deps.stopRequested.then((signal) => {
    throw new CliError(
      'CLI_STACK_FAILED',
      EXIT.interrupted,
      `${signal} while starting`,
      'nothing is left running; run e2e-col up again when ready',
    )
  })
  interrupted.catch(() => {})
  const starting = <T>(step: Promise<T>): Promise<T> => Promise.race([step, interrupted])
  const stopAll = async (): Promise<void> => {
    for (let s = stops.pop(); s !== undefined; s = stops.pop()) await s().catch(() => {})
  }
  try {
    let daemonUrl: string
    if (cmd.daemonUrl === undefined && existsSync(layout.signalCliDir)) {
      const start = startManagedDaemon(layout, term, env)
      // If the start is interrupted, the daemon it brings up must still be stopped.
      stops.push(async () => (await start.catch(() => undefined))?.stop())
      const daemon: SupervisedDaemon = await starting(start)
      daemonUrl = daemon.url
    } else {
      daemonUrl = cmd.daemonUrl ?? settings['SIGNAL_CLI_URL'] ?? 'http://127.0.0.1:8080'
      await starting(checkExternalDaemon(daemonUrl))
    }

    const pagePort = cmd.pagePort === 0 ? await freePort() : cmd.pagePort
    const origin = `http://127.0.0.1:${pagePort}`
    const page = spawnChild(
      'page',
      binOf('vite', 'vite'),
      [packageDir('@e2e-col/demo'), '--host', '127.0.0.1', '--port', String(pagePort), '--strictPort'],
      {
        env: { ...process.env, NO_COLOR: '1' },
        log: openRotatingLog(join(layout.root, 'page.log')),
      },
    )
    stops.push(() => page.stop(5_000))
    await starting(waitForPage(origin, page))

    const readiness = deferred<string>()
    const sidecarEnv: NodeJS.ProcessEnv = {
      ...process.env,
      SIGNAL_CLI_URL: daemonUrl,
      E2E_COL_ALLOWED_ORIGINS: `${origin},http://localhost:${pagePort}`,
      E2E_COL_LOG_LEVEL: 'info',
      ...(cmd.listen === undefined ? {} : { E2E_COL_LISTEN: cmd.listen }),
    }
    const sidecarLog = join(layout.root, 'sidecar.log')
    const sidecar = spawnChild('sidecar', binOf('@e2e-col/sidecar', 'e2e-col-sidecar'), ['--config', layout.config], {
      env: sidecarEnv,
      log: openRotatingLog(sidecarLog),
      onLine: (line) => {
        const url = /"url":"((?:http|ws):\/\/[^"]+)"/.exec(line)?.[1]
        if (url !== undefined && line.includes('ready')) readiness.resolve(url.replace(/^http/, 'ws'))
        // Warnings and errors (pino levels 40+) reach the terminal too.
        const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 0)
        const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1]
        if (level >= 40 && msg !== undefined) term.say(`sidecar: ${msg}`)
      },
    })
    stops.push(() => sidecar.stop(SIDECAR_STOP_GRACE_MS))
    term.say(`Starting the sidecar (log: ${sidecarLog})…`)
    const sidecarUrl = await starting(waitForSidecar(sidecar, readiness.promise, layout))

    // The home page lists every document, fixed ones (E2E_COL_DOCUMENTS) included, and makes new ones.
    const home = `${origin}/home.html?sidecar=${sidecarUrl}`
    term.say('')
    term.say(`e2e-col is up for ${settings['SIGNAL_CLI_ACCOUNT'] ?? "the daemon's account"}. Open:`)
    term.say(`  ${home}`)
    await openHome(home, { wanted: cmd.open, opener: deps.opener, term })
    term.say('Press Ctrl-C to stop the sidecar, the page and the daemon.')
    deps.onReady?.(home)

    const died = Promise.race([
      sidecar.exited.then(({ code }) => `the sidecar stopped (exit ${code ?? 'signal'}): ${sidecar.tail()}`),
      page.exited.then(({ code }) => `the page server stopped (exit ${code ?? 'signal'}): ${page.tail()}`),
    ])
    const outcome = await Promise.race([
      deps.stopRequested.then((signal) => ({ kind: 'stop' as const, signal })),
      died.then((why) => ({ kind: 'died' as const, why })),
    ])
    if (outcome.kind === 'stop') term.say(`\n${outcome.signal}: stopping the sidecar, the page and the daemon…`)
    else term.say(`${outcome.why}; stopping the rest.`)
    await stopAll()
    return outcome.kind === 'stop' ? EXIT.ok : EXIT.stackFailed
  } catch (error) {
    await stopAll()
    const known = asCliError(error)
    if (known?.exitCode === EXIT.interrupted) {
      term.say(known.message)
      return EXIT.interrupted
    }
    throw error
  }
}
