/** The CLI's typed failure: a stable code, the exit code, and what to do about it. */
import type { ExitCode } from './exit-codes.ts'

export const CLI_ERROR_CODES = [
  'CLI_USAGE',
  'CLI_NO_JAVA',
  'CLI_NO_SIGNAL_CLI',
  'CLI_DAEMON_FAILED',
  'CLI_DAEMON_UNREACHABLE',
  'CLI_SIGNAL_UNREACHABLE',
  'CLI_LINK_TIMEOUT',
  'CLI_LINK_REFUSED',
  'CLI_CAPTCHA_REQUIRED',
  'CLI_CAPTCHA_REJECTED',
  'CLI_WRONG_CODE',
  'CLI_PIN_LOCKED',
  'CLI_RATE_LIMITED',
  'CLI_REGISTRATION_FAILED',
  'CLI_ALREADY_EXISTS',
  'CLI_NOT_SET_UP',
  'CLI_STATE_DIR',
  'CLI_NEEDS_INPUT',
  'CLI_STACK_FAILED',
] as const
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number]

export class CliError extends Error {
  override readonly name = 'CliError'
  readonly code: CliErrorCode
  readonly exitCode: ExitCode
  /** What the person should do next: one sentence, printed after the message. */
  readonly hint: string
  constructor(code: CliErrorCode, exitCode: ExitCode, message: string, hint: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.exitCode = exitCode
    this.hint = hint
  }
}

const CODES: ReadonlySet<unknown> = new Set(CLI_ERROR_CODES)

/** `err` as a CliError, known by its `code` (errors are told apart by code, never `instanceof`). */
export function asCliError(err: unknown): CliError | undefined {
  if (typeof err !== 'object' || err === null) return undefined
  return CODES.has((err as { code?: unknown }).code) ? (err as CliError) : undefined
}
