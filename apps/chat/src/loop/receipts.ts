import { ChatError } from '../errors.ts'
import type { ReceiptState } from '../receipt-state.ts'

export type { ReceiptState }

/** The reaction for each state. Signal keeps one reaction per author, so each replaces the last. */
export const RECEIPT_EMOJI: Readonly<Record<ReceiptState, string>> = {
  queued: '📥',
  running: '⚙️',
  done: '✅',
  failed: '❌',
  cancelled: '🚫',
}

const NEXT: Readonly<Record<ReceiptState, readonly ReceiptState[]>> = {
  queued: ['running', 'cancelled'],
  running: ['done', 'failed', 'cancelled'],
  done: [],
  failed: [],
  cancelled: [],
}

/** True for the states a message never leaves. */
export function isFinalReceipt(state: ReceiptState): boolean {
  return NEXT[state].length === 0
}

/**
 * The one legal step from `from` to `to`; throws `CHAT_RECEIPT_TRANSITION` otherwise (a bug in the
 * loop, e.g. reporting `done` for a message that never ran).
 */
export function advanceReceipt(from: ReceiptState | undefined, to: ReceiptState): ReceiptState {
  const allowed = from === undefined ? to === 'queued' : NEXT[from].includes(to)
  if (!allowed) throw new ChatError('CHAT_RECEIPT_TRANSITION', `receipt cannot go from ${from ?? 'none'} to ${to}`)
  return to
}
