/**
 * Envelope kinds a browser may send and the sidecar carries. `batch` and `chunk` are the
 * sidecar's own packing; `ack` and `error` only ever go from a sidecar to its browsers.
 */
import type { Kind } from '@e2e-col/protocol'

export const BROWSER_KINDS: ReadonlySet<Kind> = new Set<Kind>([
  'update',
  'sync-request',
  'sync-response',
  'snapshot',
  'awareness',
  'health',
  'chat-prompt',
  'chat-reply',
  'chat-control',
  'chat-status',
])
