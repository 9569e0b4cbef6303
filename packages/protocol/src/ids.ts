/**
 * The 16-byte identifiers of an envelope as text: documents and senders are lowercase canonical UUIDs
 * (`8-4-4-4-12` hex), message ids are 32 lowercase hex digits (128 random bits). Only the canonical
 * form is accepted so that decode → encode reproduces the bytes exactly.
 */
import { ProtocolError } from './errors.ts'

const HEX = '0123456789abcdef'
// Byte → two hex digits, built once.
const BYTE_TO_HEX: string[] = Array.from({ length: 256 }, (_, i) => (HEX[i >> 4] ?? '') + (HEX[i & 15] ?? ''))
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const MESSAGE_ID_PATTERN = /^[0-9a-f]{32}$/

/** Byte length of every id on the wire. */
export const ID_BYTES = 16

/** Lowercase hex of `bytes[offset, offset + length)`. */
export function toHex(bytes: Uint8Array, offset = 0, length = bytes.length - offset): string {
  let out = ''
  for (let i = offset; i < offset + length; i++) out += BYTE_TO_HEX[bytes[i] ?? 0]
  return out
}

function writeHex(hex: string, target: Uint8Array, offset: number): void {
  for (let i = 0; i < ID_BYTES; i++) target[offset + i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16)
}

/** True for a lowercase canonical UUID string. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value)
}

/** True for a message id: 32 lowercase hex digits. */
export function isMessageId(value: unknown): value is string {
  return typeof value === 'string' && MESSAGE_ID_PATTERN.test(value)
}

/** @throws ProtocolError `PROTO_INVALID_FIELD` when `uuid` is not lowercase canonical. */
export function writeUuid(uuid: string, field: string, target: Uint8Array, offset: number): void {
  if (!isUuid(uuid)) throw new ProtocolError('PROTO_INVALID_FIELD', `${field} must be a lowercase canonical UUID`)
  writeHex(uuid.replaceAll('-', ''), target, offset)
}

/** @throws ProtocolError `PROTO_INVALID_FIELD` when `id` is not 32 lowercase hex digits. */
export function writeMessageId(id: string, target: Uint8Array, offset: number): void {
  if (!isMessageId(id)) throw new ProtocolError('PROTO_INVALID_FIELD', 'messageId must be 32 lowercase hex digits')
  writeHex(id, target, offset)
}

function formatUuid(bytes: Uint8Array, offset: number): string {
  const h = toHex(bytes, offset, ID_BYTES)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/**
 * The last id read in one header slot. Consecutive frames (the chunks of one message above all)
 * repeat the same ids, so comparing 16 bytes and reusing the text beats formatting it again.
 */
interface LastId {
  readonly bytes: Uint8Array
  text: string
}
const lastDocOrSender: LastId[] = [
  { bytes: new Uint8Array(ID_BYTES), text: '' },
  { bytes: new Uint8Array(ID_BYTES), text: '' },
]
const lastMessageId: LastId = { bytes: new Uint8Array(ID_BYTES), text: '' }

function sameId(cached: Uint8Array, bytes: Uint8Array, offset: number): boolean {
  for (let i = 0; i < ID_BYTES; i++) if (cached[i] !== bytes[offset + i]) return false
  return true
}

function readCached(
  last: LastId,
  bytes: Uint8Array,
  offset: number,
  format: (bytes: Uint8Array, offset: number) => string,
): string {
  if (last.text !== '' && sameId(last.bytes, bytes, offset)) return last.text
  const text = format(bytes, offset)
  last.bytes.set(bytes.subarray(offset, offset + ID_BYTES))
  last.text = text
  return text
}

/** The canonical UUID text of 16 bytes at `offset`; `slot` 0 or 1 picks a reuse cache (doc, sender). */
export function readUuid(bytes: Uint8Array, offset: number, slot: 0 | 1 = 0): string {
  const last = lastDocOrSender[slot]
  return last === undefined ? formatUuid(bytes, offset) : readCached(last, bytes, offset, formatUuid)
}

/** The message id text of 16 bytes at `offset`. */
export function readMessageId(bytes: Uint8Array, offset: number): string {
  return readCached(lastMessageId, bytes, offset, formatMessageId)
}

function formatMessageId(bytes: Uint8Array, offset: number): string {
  return toHex(bytes, offset, ID_BYTES)
}

/**
 * A fresh message id from 128 caller-supplied random bits (randomness is injected: pass
 * `crypto.getRandomValues`-backed bytes in production, a seeded source in tests).
 *
 * @throws ProtocolError `PROTO_INVALID_FIELD` unless `randomBytes(16)` returns exactly 16 bytes.
 */
export function newMessageId(randomBytes: (length: number) => Uint8Array): string {
  const bytes = randomBytes(ID_BYTES)
  if (bytes.length !== ID_BYTES) throw new ProtocolError('PROTO_INVALID_FIELD', 'randomBytes(16) must return 16 bytes')
  return toHex(bytes)
}
