/** Typed failures of finding and running signal-cli, with stable codes. */
export const RUNTIME_ERROR_CODES = [
  'DAEMON_PORT_TAKEN',
  'DAEMON_CONFIG_LOCKED',
  'DAEMON_EXITED',
  'DAEMON_START_TIMEOUT',
] as const
export type RuntimeErrorCode = (typeof RUNTIME_ERROR_CODES)[number]

export class RuntimeError extends Error {
  override readonly name = 'RuntimeError'
  readonly code: RuntimeErrorCode
  constructor(code: RuntimeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

const CODES: ReadonlySet<unknown> = new Set(RUNTIME_ERROR_CODES)

/** `err` as a {@link RuntimeError}, known by its `code` (callers in other packages never use `instanceof`). */
export function asRuntimeError(err: unknown): RuntimeError | undefined {
  if (typeof err !== 'object' || err === null) return undefined
  return CODES.has((err as { code?: unknown }).code) ? (err as RuntimeError) : undefined
}
