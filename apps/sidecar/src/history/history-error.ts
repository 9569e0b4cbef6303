/**
 * Failures of the history API, each with a stable code and the HTTP status it is answered with.
 * @see docs/documents.md "History"
 */
import { codeOf } from '../error-code.ts'

export type HistoryErrorCode =
  | 'HISTORY_UNKNOWN_DOCUMENT'
  | 'HISTORY_UNKNOWN_VERSION'
  | 'HISTORY_DOCUMENT_LEFT'
  | 'HISTORY_BAD_REQUEST'
  | 'HISTORY_METHOD_NOT_ALLOWED'
  | 'HISTORY_TOO_OLD'
  | 'HISTORY_NOT_APPLIED'
  | 'HISTORY_NOT_EDITOR'

const STATUS: Readonly<Record<HistoryErrorCode, number>> = {
  HISTORY_UNKNOWN_DOCUMENT: 404,
  HISTORY_UNKNOWN_VERSION: 404,
  HISTORY_DOCUMENT_LEFT: 409,
  HISTORY_BAD_REQUEST: 400,
  HISTORY_METHOD_NOT_ALLOWED: 405,
  HISTORY_TOO_OLD: 400,
  HISTORY_NOT_APPLIED: 503,
  HISTORY_NOT_EDITOR: 403,
}

export class HistoryError extends Error {
  readonly code: HistoryErrorCode
  readonly status: number
  /** Fields answered beside code and message (HISTORY_TOO_OLD: `oldest`, ms). */
  readonly details: Readonly<Record<string, number>>
  constructor(code: HistoryErrorCode, message: string, details: Readonly<Record<string, number>> = {}) {
    super(message)
    this.name = 'HistoryError'
    this.code = code
    this.status = STATUS[code]
    this.details = details
  }
}

/** True for an error carrying one of the codes above (branched on by code, not by class). */
export function isHistoryError(error: unknown): error is HistoryError {
  const code = codeOf(error)
  return code !== undefined && Object.hasOwn(STATUS, code)
}
