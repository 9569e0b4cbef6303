import { CodedError } from '@e2e-col/protocol'

/** Stable codes of {@link TransportError}. */
export type TransportErrorCode = 'TRANSPORT_CLOSED' | 'TRANSPORT_BAD_URL'

/** The one error class of `@e2e-col/transport`; branch on `code`. */
export class TransportError extends CodedError<TransportErrorCode> {
  override readonly name = 'TransportError'
}
