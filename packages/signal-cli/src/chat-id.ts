/**
 * The chat id of a chat group: a UUID derived from the group id, so the loop, its sidecar and
 * every browser compute the same one without a registry.
 * @see docs/sidecar.md §4.9
 */
import { createHash } from 'node:crypto'

export function chatIdForGroup(groupId: string): string {
  const h = createHash('sha256').update(`e2e-col-chat:${groupId}`).digest()
  h[6] = ((h[6] as number) & 0x0f) | 0x80 // version 8 (custom)
  h[8] = ((h[8] as number) & 0x3f) | 0x80 // RFC 4122 variant
  const hex = h.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}
