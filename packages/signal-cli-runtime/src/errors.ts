/** Typed failures of finding and running signal-cli, with stable codes. */
export type RuntimeErrorCode = 'DAEMON_PORT_TAKEN' | 'DAEMON_CONFIG_LOCKED' | 'DAEMON_EXITED' | 'DAEMON_START_TIMEOUT'

export class RuntimeError extends Error {
  override readonly name = 'RuntimeError'
  readonly code: RuntimeErrorCode
  constructor(code: RuntimeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}
