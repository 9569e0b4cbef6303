/** Where an accepted message came from, and a prompt waiting in the inbox with its receipt. */
import type { InboxItem } from './inbox.ts'
import type { ReceiptState } from './receipts.ts'

/** A Signal message (answered with reactions) or a console line (answered with statuses). */
export type Origin =
  | { kind: 'signal'; author: string; timestamp: number; device: number | undefined }
  | { kind: 'console'; ref: string }

/** One accepted prompt, with the receipt it shows so far. */
export type Queued = InboxItem & { origin: Origin; receipt: ReceiptState | undefined }

/** Who sent it, as the audit log records it: the number (masked there), `console` or `topic`. */
export function auditSource(origin: Origin | undefined): {
  sender: string
  device: number | undefined
  signalTimestamp: number | undefined
} {
  if (origin === undefined) return { sender: 'topic', device: undefined, signalTimestamp: undefined }
  if (origin.kind === 'console') return { sender: 'console', device: undefined, signalTimestamp: undefined }
  return { sender: origin.author, device: origin.device, signalTimestamp: origin.timestamp }
}
