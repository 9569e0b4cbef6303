import { CodedError } from '@e2e-col/protocol'
import { EXIT_CODES, type ExitCode } from './exit-codes.ts'

/** Stable error codes of the chat loop; callers branch on `code`, never on the message. */
export type ChatErrorCode =
  | 'CHAT_USAGE'
  | 'CHAT_CONFIG_INVALID'
  | 'CHAT_NO_OPERATOR'
  | 'CHAT_NOT_LINKED'
  | 'CHAT_REMOTE_ENDPOINT'
  | 'CHAT_GROUP_SETUP'
  | 'CHAT_DAEMON_LOST'
  | 'CHAT_AGENT_NO_RESUME'
  | 'CHAT_STATE'
  | 'CHAT_LOCKED'
  | 'CHAT_RPC'
  | 'CHAT_DAEMON_UNAVAILABLE'
  | 'CHAT_RECEIPT_TRANSITION'
  | 'CHAT_INTERNAL'
  /** A document turn's agent answered no usable FIND/REPLACE block. */
  | 'CHAT_DOC_ANSWER'
  /** A document turn could not read or find its document (the sidecar, the token, the title). */
  | 'CHAT_DOC_UNAVAILABLE'

const EXIT_BY_CODE: Readonly<Record<ChatErrorCode, ExitCode>> = {
  CHAT_USAGE: EXIT_CODES.setup,
  CHAT_CONFIG_INVALID: EXIT_CODES.setup,
  CHAT_NO_OPERATOR: EXIT_CODES.setup,
  CHAT_NOT_LINKED: EXIT_CODES.setup,
  CHAT_REMOTE_ENDPOINT: EXIT_CODES.remoteEndpointRefused,
  CHAT_GROUP_SETUP: EXIT_CODES.groupSetupFailed,
  CHAT_DAEMON_LOST: EXIT_CODES.daemonLost,
  CHAT_AGENT_NO_RESUME: EXIT_CODES.agentCannotResume,
  CHAT_STATE: EXIT_CODES.setup,
  CHAT_LOCKED: EXIT_CODES.setup,
  CHAT_RPC: EXIT_CODES.setup,
  CHAT_DAEMON_UNAVAILABLE: EXIT_CODES.daemonLost,
  CHAT_RECEIPT_TRANSITION: EXIT_CODES.setup,
  CHAT_INTERNAL: EXIT_CODES.setup,
  // Document turns fail one turn, never the chat: these never end the command.
  CHAT_DOC_ANSWER: EXIT_CODES.setup,
  CHAT_DOC_UNAVAILABLE: EXIT_CODES.setup,
}

/** The one error class of `@e2e-col/chat`. Messages never carry secrets or full phone numbers. */
export class ChatError extends CodedError<ChatErrorCode> {
  override readonly name: string = 'ChatError'
  /** The process exit code this error ends the command with. */
  get exitCode(): ExitCode {
    return EXIT_BY_CODE[this.code]
  }
}

/** `err` as a ChatError, known by its `code` (errors are told apart by code here, never `instanceof`). */
export function asChatError(err: unknown): ChatError | undefined {
  if (typeof err !== 'object' || err === null) return undefined
  const code = (err as { code?: unknown }).code
  return typeof code === 'string' && Object.hasOwn(EXIT_BY_CODE, code) ? (err as ChatError) : undefined
}

/** Maps anything thrown to an exit code: ChatError by its code, everything else is internal (1). */
export function exitCodeOf(err: unknown): ExitCode {
  const chatError = asChatError(err)
  return chatError === undefined ? EXIT_CODES.setup : EXIT_BY_CODE[chatError.code]
}
