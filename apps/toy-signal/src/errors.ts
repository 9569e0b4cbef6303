/** Stable codes of {@link ToySignalError}; callers branch on these, never on messages. */
export type ToySignalErrorCode = 'TOY_CONFIG_INVALID' | 'TOY_FAULTS_DISABLED' | 'TOY_LISTEN_FAILED'

/** The toy's own failures (configuration, misuse of the in-process API), as opposed to JSON-RPC errors. */
export class ToySignalError extends Error {
  readonly code: ToySignalErrorCode
  constructor(code: ToySignalErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'ToySignalError'
    this.code = code
  }
}
