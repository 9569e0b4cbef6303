import type { AttachmentStore } from '../attachments.ts'
import type { EventHub } from '../event-hub.ts'
import type { FaultState } from '../faults.ts'
import type { SignalPace } from '../pace.ts'
import type { ProvisioningState } from '../provisioning-state.ts'
import type { ToySignalState } from '../state.ts'

/** Everything a method handler may touch. */
export interface MethodContext {
  state: ToySignalState
  hub: EventHub
  faults: FaultState
  /** Attachments received by the toy's accounts (`getAttachment`). */
  attachments: AttachmentStore
  /** Largest attachment a send accepts. */
  maxAttachmentBytes: number
  /** Signal's pace, when the toy enforces it (off by default). */
  pace: SignalPace | undefined
  /** Pending device links and registrations (undefined only in unit tests of other methods). */
  provisioning?: ProvisioningState
  /** The routed account; always set for per-account methods. */
  account: string
  params: Record<string, unknown>
  /** Asks the HTTP layer to destroy the socket instead of answering (the `dropNextSends` fault). */
  dropConnection(): void
}

/** One JSON-RPC method: how it routes accounts, and what it does. */
export interface MethodDefinition {
  /**
   * `account`: per-account command; `dual`: works with or without one; `multi`: multi-account mode
   * only, account ignored; `registration`: multi-account mode only, `account` required but need not
   * exist yet (`register`, `verify`).
   */
  routing: 'account' | 'dual' | 'multi' | 'registration'
  /** The first signal-cli release with the method; a toy playing an older one answers -32601. */
  since?: string
  run(ctx: MethodContext): unknown
}
