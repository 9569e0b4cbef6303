/**
 * Signal's platform limits where they bound what e2e-col sends, and the toy's refusals of them in
 * the shape a real daemon reports them. The server answers an oversized message with 413, which
 * libsignal-service reports as a RateLimitException (as for 429), so signal-cli's `send` fails
 * -32603 `Failed to send message: [413] Rate limit exceeded: 413 (RateLimitException)
 * (UnexpectedErrorException)` and nothing is delivered.
 * @see reference `signal-cli-wire.md` §9.1 (Signal-Server `MessageSender`, `MultiRecipientMessageProvider`,
 *   signal-cli `ServiceConfig.GROUP_MAX_SIZE`, Signal-Android `RemoteConfig`)
 */
import { LONG_TEXT_BYTES } from './envelopes.ts'
import { internalError, type RpcFailure } from './rpc-failure.ts'

export const SIGNAL_LIMITS = {
  /** One message's content on the server. */
  contentBytes: 96 * 1024,
  /** One multi-recipient (sender-key group) send. */
  groupSendBytes: 256 * 1024 + 32,
  /** Members of one group (hard limit; 151 recommended). */
  groupMembers: 1001,
  /** An attachment, as clients accept by default (signal-cli itself allows 150 MiB). */
  attachmentBytes: 100 * 1024 * 1024,
} as const

/** About what one attachment pointer adds to a message's content (id, key, digest, size, name). */
const POINTER_BYTES = 160
/** About what each recipient adds to a multi-recipient send (service id, device, key material). */
const PER_RECIPIENT_BYTES = 56

function tooLarge(): RpcFailure {
  return internalError(
    'Failed to send message: [413] Rate limit exceeded: 413 (RateLimitException)',
    'UnexpectedErrorException',
  )
}

/**
 * The content bytes of one message: the body up to signal-cli's long-text cut (a longer text goes
 * as a long-text attachment) plus a pointer per attachment.
 */
export function contentBytes(message: string, attachments: number): number {
  const body = Buffer.byteLength(message, 'utf8')
  const long = body > LONG_TEXT_BYTES
  return Math.min(body, LONG_TEXT_BYTES) + (attachments + (long ? 1 : 0)) * POINTER_BYTES
}

/** Refuses a message over Signal's content limit, or a group send over the multi-recipient limit. */
export function checkMessageSize(content: number, groupRecipients: readonly number[]): void {
  if (content > SIGNAL_LIMITS.contentBytes) throw tooLarge()
  for (const recipients of groupRecipients)
    if (content + recipients * PER_RECIPIENT_BYTES > SIGNAL_LIMITS.groupSendBytes) throw tooLarge()
}

/** -32603 when a group would hold more members (and invitees) than Signal allows. */
export function checkGroupSize(members: number): void {
  if (members > SIGNAL_LIMITS.groupMembers)
    throw internalError(
      `Failed to update group: the group would have ${members} members, Signal allows ${SIGNAL_LIMITS.groupMembers}`,
      'GroupSizeException',
    )
}
