/** Stable codes of {@link TransportError}. */
export type TransportErrorCode = 'TRANSPORT_CLOSED' | 'TRANSPORT_BAD_URL'

/** The one error class of `@e2e-col/transport`; branch on `code`. */
export class TransportError extends Error {
  readonly code: TransportErrorCode
  constructor(code: TransportErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'TransportError'
    this.code = code
  }
}
