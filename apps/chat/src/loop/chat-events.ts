/** What the loop reports to an observer (the terminal, tests), and the timings tests may shorten. */
import type { TurnResult } from '../agent/turn-runner.ts'
import type { GateRejection } from './gate.ts'
import type { ReceiptState } from './receipts.ts'

/** Timings, all overridable by tests. */
export interface ChatTiming {
  backoffBaseMs: number
  backoffMaxMs: number
  membershipBaseMs: number
  membershipMaxMs: number
  graceMs: number
  livenessMs: number
  /** Bodies of one reply sent back to back before pacing starts, and the gap after that. */
  paceBurst: number
  paceMs: number
}

export const DEFAULT_TIMING: ChatTiming = {
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  membershipBaseMs: 1000,
  membershipMaxMs: 60_000,
  graceMs: 3000,
  livenessMs: 30_000,
  paceBurst: 3,
  paceMs: 1000,
}

export type ChatEvent =
  | { type: 'ready'; groupId: string; sessionId: string }
  | { type: 'ignored'; reason: GateRejection | 'envelope-body' }
  /** `file`: the name of the file the post carried, if any. */
  | { type: 'posted'; text: string; timestamp: number; file?: string | undefined }
  | { type: 'withheld'; reason: string; remaining: number }
  /** `target`: the Signal timestamp of the message, or the console input's ref. */
  | { type: 'receipt'; target: number | string; state: ReceiptState }
  | { type: 'turn-started'; turn: number; prompt: string }
  | { type: 'turn-ended'; turn: number; outcome: TurnResult['outcome'] }
  | { type: 'events-connected' }

/** Awaited by the loop, so a test's hook runs before the loop goes on. */
export type Observe = (event: ChatEvent) => Promise<void>
