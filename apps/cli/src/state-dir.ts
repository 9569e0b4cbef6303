/**
 * The e2e-col state folder and what lives in it. Default `$XDG_STATE_HOME/e2e-col`, else
 * `~/.local/state/e2e-col` (the sidecar's own default data folder, so one place holds everything).
 *
 *   <state>/config.json        the sidecar's --config file (0600), written last by setup
 *   <state>/signal-cli/        the managed daemon's --config folder (0700): keys and accounts
 *   <state>/daemon.log(.1…)    the managed daemon's output, rotated
 *   <state>/sidecar/           the sidecar's replica store (E2E_COL_DATA_DIR)
 */
import { chmodSync, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'

/** Paths inside one state folder. */
export interface StateLayout {
  readonly root: string
  readonly config: string
  readonly signalCliDir: string
  readonly daemonLog: string
  readonly sidecarDataDir: string
}

/** The default state folder for this environment. */
export function defaultStateDir(env: Record<string, string | undefined>): string {
  const xdg = env['XDG_STATE_HOME']
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'e2e-col')
  const home = env['HOME'] !== undefined && isAbsolute(env['HOME']) ? env['HOME'] : homedir()
  return join(home, '.local', 'state', 'e2e-col')
}

export function stateLayout(root: string): StateLayout {
  const abs = resolve(root)
  return {
    root: abs,
    config: join(abs, 'config.json'),
    signalCliDir: join(abs, 'signal-cli'),
    daemonLog: join(abs, 'daemon.log'),
    sidecarDataDir: join(abs, 'sidecar'),
  }
}

/** Creates a private folder (0700, also when it already existed with looser bits). */
export function privateDir(path: string): void {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 })
    chmodSync(path, 0o700)
  } catch (error) {
    throw stateDirError('create', path, error)
  }
}

/** What setup says when it cannot `action` a file or folder in the state folder. */
export function stateDirError(action: 'create' | 'write', path: string, error: unknown): CliError {
  return new CliError(
    'CLI_STATE_DIR',
    EXIT.notSetUp,
    `cannot ${action} ${path}: ${(error as Error).message}`,
    'choose a writable folder with --state-dir DIR',
    { cause: error },
  )
}
