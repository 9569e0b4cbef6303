import type { EventHub } from '../event-hub.ts'
import type { FaultState } from '../faults.ts'
import type { ToySignalState } from '../state.ts'

/** Everything a method handler may touch. */
export interface MethodContext {
  state: ToySignalState
  hub: EventHub
  faults: FaultState
  /** The routed account; always set for per-account methods. */
  account: string
  params: Record<string, unknown>
  /** Asks the HTTP layer to destroy the socket instead of answering (the `dropNextSends` fault). */
  dropConnection(): void
}

/** One JSON-RPC method: how it routes accounts, and what it does. */
export interface MethodDefinition {
  /** `account`: per-account command; `dual`: works with or without one; `multi`: multi-account mode only, account ignored. */
  routing: 'account' | 'dual' | 'multi'
  run(ctx: MethodContext): unknown
}
