/**
 * Every failure the sidecar reports carries a stable string `code`; callers branch on it, never on
 * the message text. Startup failures map one-to-one onto process exit codes ({@link exitCodeFor}).
 * @see docs/sidecar.md §4 and daemon-contract.md §6.7
 */
import { CodedError } from '@e2e-col/protocol'

export type SidecarErrorCode =
  | 'CONFIG_INVALID'
  | 'SIDECAR_DAEMON_UNREACHABLE'
  | 'SIDECAR_VERSION_FAILED'
  | 'SIDECAR_ACCOUNT_INVALID'
  | 'SIDECAR_GROUPS_MISSING'
  | 'SIDECAR_EVENTS_FAILED'
  | 'SIDECAR_LISTEN_FAILED'
  | 'SIDECAR_STORE_FAILED'

/** The sidecar's one error base class. */
export class SidecarError extends CodedError<SidecarErrorCode> {
  override readonly name: string = 'SidecarError'
}

/**
 * The replica store cannot be opened, read or written. The sidecar never runs without its store:
 * at startup this refuses to start, at runtime it stops the sidecar (exit code 9).
 */
export class StoreError extends SidecarError {
  override readonly name: string = 'StoreError'
  /** The store's file or folder. */
  readonly path: string
  constructor(path: string, message: string, options?: ErrorOptions) {
    super('SIDECAR_STORE_FAILED', `replica store ${path}: ${message}`, options)
    this.path = path
  }
}

const EXIT_CODES: Readonly<Partial<Record<SidecarErrorCode, number>>> = {
  CONFIG_INVALID: 2,
  SIDECAR_DAEMON_UNREACHABLE: 3,
  SIDECAR_VERSION_FAILED: 4,
  SIDECAR_ACCOUNT_INVALID: 5,
  SIDECAR_GROUPS_MISSING: 6,
  SIDECAR_EVENTS_FAILED: 7,
  SIDECAR_LISTEN_FAILED: 8,
  SIDECAR_STORE_FAILED: 9,
}

/** The process exit code for a startup failure; 1 for anything unexpected. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof SidecarError) return EXIT_CODES[error.code] ?? 1
  return 1
}
