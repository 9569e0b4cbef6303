/**
 * The one config file setup writes: the sidecar's `--config` JSON (setting names as keys), 0600,
 * written to a temporary file and renamed into place so it is never half-written.
 */
import { randomUUID } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { z } from 'zod'
import { CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'
import { stateDirError } from './state-dir.ts'

/** What setup knows at the end. */
export interface SetupResult {
  readonly daemonUrl: string
  readonly account: string
  /** Linked to the person's phone, or a number of the sidecar's own (the sidecar's E2E_COL_SETUP). */
  readonly setup: 'linked-device' | 'dedicated-number'
  readonly dataDir: string
}

/**
 * The sidecar settings setup writes. No E2E_COL_DOCUMENTS: documents are made from the home page
 * and kept in the sidecar's store.
 */
export function sidecarSettings(r: SetupResult): Record<string, string> {
  return {
    SIGNAL_CLI_URL: r.daemonUrl,
    SIGNAL_CLI_ACCOUNT: r.account,
    E2E_COL_SETUP: r.setup,
    // signal-cli turns longer texts into long-text attachments.
    E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
    E2E_COL_LISTEN: '127.0.0.1:7600',
    E2E_COL_DATA_DIR: r.dataDir,
  }
}

/** Writes the file atomically with mode 0600. */
export function writeConfigFile(path: string, settings: Record<string, string>): void {
  const temporary = `${path}.${randomUUID()}.tmp`
  try {
    writeFileSync(temporary, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
    chmodSync(temporary, 0o600)
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw stateDirError('write', path, error)
  }
}

const Settings = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))

/** Reads the config `up` runs with. @throws CliError CLI_NOT_SET_UP */
export function readConfigFile(path: string, setupCommand: string): Record<string, string> {
  if (!existsSync(path)) {
    throw new CliError('CLI_NOT_SET_UP', EXIT.notSetUp, `not set up yet (no ${path})`, `run \`${setupCommand}\` first`)
  }
  try {
    return Settings.parse(JSON.parse(readFileSync(path, 'utf8')))
  } catch (error) {
    throw new CliError(
      'CLI_NOT_SET_UP',
      EXIT.notSetUp,
      `${path} is not a JSON object of settings (${(error as Error).message.split('\n')[0] ?? ''})`,
      `fix it, or run \`${setupCommand} --force\` to write it again`,
      { cause: error },
    )
  }
}
