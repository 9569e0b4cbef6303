/**
 * The codes a sidecar puts in an `error` envelope when it refuses a browser's frame (payload UTF-8
 * JSON `{"code","message"}`), besides the protocol's own `PROTO_*` codes. Browsers may branch on
 * them; each has a row in the contract's refusal tables (`test/refusal-codes.test.ts`).
 */
import type { ProtocolErrorCode } from './errors.ts'

export const REFUSAL_CODES = [
  'SIDECAR_TEXT_FRAME',
  'SIDECAR_RATE_LIMITED',
  'SIDECAR_WRONG_DOCUMENT',
  'SIDECAR_KIND_NOT_ALLOWED',
  'SIDECAR_FLAG_NOT_ALLOWED',
  'SIDECAR_SENDER_CHANGED',
  'SIDECAR_QUEUE_FULL',
  'SIDECAR_SEND_REJECTED',
  'SIDECAR_MESSAGE_ID_TAKEN',
  'SIDECAR_BAD_PAYLOAD',
  'SIDECAR_PRESENCE_TOO_LARGE',
  'SIDECAR_CHAT_NOT_OPERATOR',
  'SIDECAR_CHAT_TOO_LONG',
  'SIDECAR_CHAT_UNSENT',
  'SIDECAR_READ_ONLY',
] as const

export type RefusalCode = (typeof REFUSAL_CODES)[number]

/** Every code an `error` envelope can carry. */
export type WireErrorCode = RefusalCode | ProtocolErrorCode
