/**
 * The loop's port to browser consoles (through the sidecar). Inputs are prompts and control phrases
 * from browsers the sidecar's access rules admit as operators; they go through the same control
 * parsing, queue and turns as messages from phones. Outputs mirror the whole conversation.
 */
import type { ReceiptState } from '../receipt-state.ts'

/** One line typed into a console. `ref` identifies it in later status updates. */
export interface ConsoleInput {
  text: string
  ref: string
}

/** What the loop tells consoles. */
export type ConsoleOutput =
  /** A prompt as the loop took it: from a phone (lifted from plain text) or a console. */
  | { kind: 'chat-prompt'; text: string; from: 'phone' | 'console'; ref: string }
  /** Text the loop posted to the group (redacted, whole: consoles get no 2000-byte split). */
  | { kind: 'chat-reply'; text: string; turn: number | undefined }
  /** A receipt on a console prompt, or a status answer. */
  | {
      kind: 'chat-status'
      ref: string | undefined
      state: ReceiptState | 'rejected' | 'info'
      text?: string | undefined
    }

export interface ConsolePort {
  /** Ends when the port closes or `signal` aborts. */
  inputs(signal: AbortSignal): AsyncIterable<ConsoleInput>
  /** Fire and forget; must not throw. */
  emit(out: ConsoleOutput): void
}
