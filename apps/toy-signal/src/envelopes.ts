/**
 * Builders for the `receive` payloads signal-cli writes on the events stream: the bare
 * `{envelope, account}` object of `JsonReceiveMessageHandler`, v0.14.x shapes (empty lists omitted,
 * long text in full plus a `text/x-signal-plain` attachment).
 * @see docs/daemon-contract.md §2, reference `signal-cli-wire.md` §6 and §7
 */

import type { AttachmentInfo } from './attachments.ts'

/** signal-cli's long-text threshold (`ServiceConfig.MAX_MESSAGE_SIZE_BYTES`), in UTF-8 bytes. */
export const LONG_TEXT_BYTES = 2000

/** Who sent a message, as the envelope names them. */
export interface Sender {
  number: string
  uuid: string
}

/** The content of one data message. */
export interface MessageContent {
  timestamp: number
  message: string | null
  group?: { id: string; name: string; revision: number; type: 'DELIVER' | 'UPDATE' }
  reaction?: {
    emoji: string
    targetAuthor: string
    targetAuthorUuid: string
    targetSentTimestamp: number
    isRemove: boolean
  }
  /** An admin's deletion of another member's message (`sendAdminDelete`, signal-cli 0.14.0+). */
  adminDelete?: { targetAuthor: string; targetAuthorUuid: string; targetSentTimestamp: number }
  /** Id for the long-text attachment, used only when the text is longer than {@link LONG_TEXT_BYTES}. */
  longTextId: string
  /** Attachments sent with the message, after the long-text one (signal-cli puts that first). */
  attachments?: readonly AttachmentInfo[]
}

/** A receive payload: exactly what goes after `data:` on the events stream. */
export interface ReceivePayload {
  envelope: Record<string, unknown>
  account: string
}

function dataMessageFields(content: MessageContent): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    timestamp: content.timestamp,
    message: content.message,
    expiresInSeconds: 0,
    isExpirationUpdate: false,
    viewOnce: false,
  }
  if (content.reaction !== undefined) {
    const r = content.reaction
    fields['reaction'] = {
      emoji: r.emoji,
      targetAuthor: r.targetAuthor,
      targetAuthorNumber: r.targetAuthor,
      targetAuthorUuid: r.targetAuthorUuid,
      targetSentTimestamp: r.targetSentTimestamp,
      isRemove: r.isRemove,
    }
  }
  if (content.adminDelete !== undefined) {
    // JsonAdminDelete: the deprecated targetAuthor, then number and uuid.
    const d = content.adminDelete
    fields['adminDelete'] = {
      targetAuthor: d.targetAuthor,
      targetAuthorNumber: d.targetAuthor,
      targetAuthorUuid: d.targetAuthorUuid,
      targetSentTimestamp: d.targetSentTimestamp,
    }
  }
  const size = content.message === null ? 0 : Buffer.byteLength(content.message, 'utf8')
  const attachments: unknown[] = []
  if (size > LONG_TEXT_BYTES) {
    attachments.push({
      contentType: 'text/x-signal-plain',
      filename: null,
      id: `${content.longTextId}.txt`,
      size,
      width: null,
      height: null,
      caption: null,
      uploadTimestamp: content.timestamp,
    })
  }
  attachments.push(...(content.attachments ?? []))
  // Empty lists are omitted, as signal-cli does.
  if (attachments.length > 0) fields['attachments'] = attachments
  if (content.group !== undefined) {
    fields['groupInfo'] = {
      groupId: content.group.id,
      groupName: content.group.name,
      revision: content.group.revision,
      type: content.group.type,
    }
  }
  return fields
}

function envelopeHead(source: Sender, timestamp: number, deliveredAt: number): Record<string, unknown> {
  return {
    source: source.number,
    sourceNumber: source.number,
    sourceUuid: source.uuid,
    sourceName: null,
    sourceDevice: 1,
    timestamp,
    serverReceivedTimestamp: timestamp,
    serverDeliveredTimestamp: Math.max(deliveredAt, timestamp),
  }
}

/** The event a recipient's stream carries for an incoming message. */
export function incomingMessage(
  account: string,
  source: Sender,
  content: MessageContent,
  deliveredAt: number,
): ReceivePayload {
  return {
    envelope: { ...envelopeHead(source, content.timestamp, deliveredAt), dataMessage: dataMessageFields(content) },
    account,
  }
}

/**
 * The copy on the sender's own stream, as a linked device sees it: `syncMessage.sentMessage` with the
 * data-message fields flattened and the destination null for group sends.
 */
export function sentMessageSync(
  self: Sender,
  destination: Sender | undefined,
  content: MessageContent,
  deliveredAt: number,
): ReceivePayload {
  return {
    envelope: {
      ...envelopeHead(self, content.timestamp, deliveredAt),
      syncMessage: {
        sentMessage: {
          destination: destination?.number ?? null,
          destinationNumber: destination?.number ?? null,
          destinationUuid: destination?.uuid ?? null,
          ...dataMessageFields(content),
        },
      },
    },
    account: self.number,
  }
}
