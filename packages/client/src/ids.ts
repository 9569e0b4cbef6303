/**
 * Random identifiers for envelopes, from `crypto.getRandomValues` (available in every browser
 * context, unlike `crypto.randomUUID`, which needs a secure context).
 */

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length)
  crypto.getRandomValues(bytes)
  return bytes
}

function hex(bytes: Uint8Array): string {
  let out = ''
  for (const b of bytes) out += b.toString(16).padStart(2, '0')
  return out
}

/** A new envelope `messageId`: 128 random bits as 32 lowercase hex digits. */
export function newMessageId(): string {
  return hex(randomBytes(16))
}

/** A new random (version 4) UUID in canonical lowercase text, used as the installation's `senderId`. */
export function newUuid(): string {
  const b = randomBytes(16)
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80
  const h = hex(b)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}
