/**
 * The document id rule: every member's sidecar derives the same document id from the group id,
 * with nothing exchanged. `UUIDv8(SHA-256("e2e-col/doc/v1\0" ‖ group id bytes)[0..16])`.
 * @see docs/decisions/0007-documents-and-groups.md
 */
import { createHash } from 'node:crypto'

const LABEL = Buffer.from('e2e-col/doc/v1\0', 'utf8')

/** The document id of the document a group carries (a lowercase RFC 9562 version-8 UUID). */
export function docIdForGroup(groupId: string): string {
  const bytes = createHash('sha256').update(LABEL).update(Buffer.from(groupId, 'base64')).digest().subarray(0, 16)
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
