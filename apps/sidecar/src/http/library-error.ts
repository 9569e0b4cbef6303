/**
 * Failures of the document library and its HTTP API, each with a stable code and the HTTP status
 * it is answered with. Messages never carry a full phone number (maskNumbersIn).
 * @see docs/documents.md
 */
import { maskNumbersIn } from '@e2e-col/signal-cli'
import { codeOf, messageOf } from '../error-code.ts'
import { API_STATUS, type ApiErrorCode } from './api-error.ts'
import { isRefusedChange } from '../ops/linked-device.ts'

export type LibraryErrorCode =
  | 'DOCS_BAD_REQUEST'
  | 'DOCS_TITLE_EMPTY'
  | 'DOCS_TITLE_TOO_LONG'
  | 'DOCS_TITLE_INVALID'
  | 'DOCS_BAD_NUMBER'
  | 'DOCS_TOO_MANY_MEMBERS'
  | 'DOCS_TOO_MANY_DOCUMENTS'
  | 'DOCS_UNKNOWN_DOCUMENT'
  | 'DOCS_UNKNOWN_INVITE'
  | 'DOCS_REMOVED_WHILE_ACCEPTING'
  | 'DOCS_FIXED_DOCUMENT'
  | 'DOCS_NOT_SHARED'
  | 'DOCS_NOT_EDITOR'
  | 'DOCS_UNKNOWN_MEMBER'
  | 'DOCS_LAST_EDITOR'
  | 'DOCS_TOO_MANY_COMMENTERS'
  | 'DOCS_DAEMON_FAILED'
  | 'DOCS_UNSUPPORTED'
  | 'DOCS_STOPPING'
  | ApiErrorCode

const STATUS: Readonly<Record<LibraryErrorCode, number>> = {
  DOCS_BAD_REQUEST: 400,
  DOCS_TITLE_EMPTY: 400,
  DOCS_TITLE_TOO_LONG: 400,
  DOCS_TITLE_INVALID: 400,
  DOCS_BAD_NUMBER: 400,
  DOCS_TOO_MANY_MEMBERS: 400,
  DOCS_TOO_MANY_DOCUMENTS: 409,
  DOCS_UNKNOWN_DOCUMENT: 404,
  DOCS_UNKNOWN_INVITE: 404,
  DOCS_REMOVED_WHILE_ACCEPTING: 409,
  DOCS_FIXED_DOCUMENT: 409,
  DOCS_NOT_SHARED: 409,
  DOCS_NOT_EDITOR: 403,
  DOCS_UNKNOWN_MEMBER: 404,
  DOCS_LAST_EDITOR: 409,
  DOCS_TOO_MANY_COMMENTERS: 409,
  DOCS_DAEMON_FAILED: 502,
  DOCS_UNSUPPORTED: 501,
  DOCS_STOPPING: 503,
  ...API_STATUS,
}

export class LibraryError extends Error {
  readonly code: LibraryErrorCode
  readonly status: number
  constructor(code: LibraryErrorCode, message: string, options?: ErrorOptions) {
    super(maskNumbersIn(message), options)
    this.name = 'LibraryError'
    this.code = code
    this.status = STATUS[code]
  }
}

/**
 * A group change the daemon failed to make: Signal's 403 (the account may not make it, e.g. a
 * viewer renaming, or an editor made a viewer since the check) is `DOCS_NOT_EDITOR`; anything else
 * as {@link daemonFailed}.
 */
export function groupChangeFailed(step: string, error: unknown): LibraryError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; rpcMessage?: unknown }
  if (e.code === 'SIDECAR_SIGNAL_RPC_ERROR' && typeof e.rpcMessage === 'string' && isRefusedChange(e.rpcMessage))
    return new LibraryError('DOCS_NOT_EDITOR', `Signal refused to ${step}: only the document's editors may`, {
      cause: error,
    })
  return daemonFailed(step, error)
}

/** The daemon failed at one step; `step` says which, in the person's words. */
export function daemonFailed(step: string, error: unknown, extra = ''): LibraryError {
  const why = messageOf(error)
  return new LibraryError('DOCS_DAEMON_FAILED', `signal-cli failed to ${step} (${why})${extra}`, { cause: error })
}

/** True for a library failure, judged by its code (the codes above), not its class. */
export function isLibraryError(error: unknown): error is LibraryError {
  const code = codeOf(error)
  return code !== undefined && Object.hasOwn(STATUS, code)
}
