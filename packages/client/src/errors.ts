import { CodedError } from '@e2e-col/protocol'

/** Stable codes of {@link ClientError}. */
export type ClientErrorCode =
  /** `docId` is not a canonical lowercase UUID. */
  | 'CLIENT_BAD_DOC_ID'
  /** `sidecarUrl` is not an http(s) or ws(s) URL. */
  | 'CLIENT_BAD_SIDECAR_URL'
  /** No WebSocket constructor given and none global (Node 20). */
  | 'CLIENT_NO_WEBSOCKET'
  /** Reading or writing the local store failed (quota, private mode, corrupted database). */
  | 'CLIENT_STORAGE_FAILED'
  /** A frame from the sidecar could not be decoded. */
  | 'CLIENT_BAD_FRAME'
  /** The sidecar answered one of our envelopes with an `error` envelope. */
  | 'CLIENT_REJECTED'
  /** The connection was closed with {@link DocConnection.close}. */
  | 'CLIENT_CLOSED'
  /** An option the caller passed (e.g. the provider's `params`) has no meaning over a sidecar. */
  | 'CLIENT_UNSUPPORTED_OPTION'
  /** The sidecar does not allow this page's origin (its message names the origin); no retry. */
  | 'CLIENT_ORIGIN_NOT_ALLOWED'

/** The one error class of `@e2e-col/client`; branch on `code`. */
export class ClientError extends CodedError<ClientErrorCode> {
  override readonly name = 'ClientError'
  /** For `CLIENT_REJECTED`: the sidecar's own error code (e.g. `PROTO_TRUNCATED`). */
  readonly remoteCode: string | undefined
  constructor(code: ClientErrorCode, message: string, options?: ErrorOptions & { remoteCode?: string }) {
    super(code, message, options)
    this.remoteCode = options?.remoteCode
  }
}
