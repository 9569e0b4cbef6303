/**
 * The failures every HTTP API of the sidecar shares (the documents API, the history API and the
 * ops endpoints): a refused Host or Origin, a body too large or not JSON, an unknown path or method.
 * Each has a stable code and the status it is answered with; an API's own failures add theirs.
 * @see docs/documents.md
 */
import { maskNumbersIn } from '@e2e-col/signal-cli'
import { codeOf } from '../error-code.ts'

export type ApiErrorCode =
  | 'API_NOT_FOUND'
  | 'API_METHOD_NOT_ALLOWED'
  | 'API_UNSUPPORTED_MEDIA_TYPE'
  | 'API_BODY_TOO_LARGE'
  | 'API_BAD_JSON'
  | 'API_HOST_NOT_ALLOWED'
  | 'API_ORIGIN_NOT_ALLOWED'

export const API_STATUS: Readonly<Record<ApiErrorCode, number>> = {
  API_NOT_FOUND: 404,
  API_METHOD_NOT_ALLOWED: 405,
  API_UNSUPPORTED_MEDIA_TYPE: 415,
  API_BODY_TOO_LARGE: 413,
  API_BAD_JSON: 400,
  API_HOST_NOT_ALLOWED: 421,
  API_ORIGIN_NOT_ALLOWED: 403,
}

export class ApiError extends Error {
  readonly code: ApiErrorCode
  readonly status: number
  constructor(code: ApiErrorCode, message: string, options?: ErrorOptions) {
    super(maskNumbersIn(message), options)
    this.name = 'ApiError'
    this.code = code
    this.status = API_STATUS[code]
  }
}

/** True for a shared API failure, judged by its code, not its class. */
export function isApiError(error: unknown): error is ApiError {
  const code = codeOf(error)
  return code !== undefined && Object.hasOwn(API_STATUS, code)
}

/** True for a refused Host or Origin: its answer names no origin in CORS headers. */
export function isGuardRefusal(error: unknown): boolean {
  const code = codeOf(error)
  return code === 'API_HOST_NOT_ALLOWED' || code === 'API_ORIGIN_NOT_ALLOWED'
}
