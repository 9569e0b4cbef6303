/**
 * The port between the sidecar and a Signal daemon. {@link HttpSignalBackend} implements it over
 * signal-cli's HTTP JSON-RPC + SSE; tests run that same implementation against the toy daemon.
 */
import type { SendResult, GroupListing } from './jsonrpc.ts'

/** One item read from the events stream: a message body in a group, or a counted skip. */
export type SignalEvent =
  | { type: 'message'; groupId: string; body: string; origin: 'data' | 'sync' }
  | { type: 'skipped'; reason: SkipReason }

/** Why an events-stream item carried nothing for the sidecar (each is counted, never fatal). */
export type SkipReason = 'malformed' | 'unrelated-event' | 'other-account' | 'no-body' | 'not-group' | 'exception'

/** One open events stream. Iterating ends when the stream ends; errors end it with a throw. */
export interface SignalEventStream extends AsyncIterable<SignalEvent> {
  close(): void
}

export interface SignalBackend {
  /** Resolves when the daemon says it is running. @throws SidecarError */
  check(signal?: AbortSignal): Promise<void>
  /** The daemon's version, or `undefined` when it has no `version` method. */
  version(): Promise<string | undefined>
  /** Accounts served by a multi-account daemon; `undefined` in single-account mode. */
  listAccounts(): Promise<string[] | undefined>
  listGroups(): Promise<GroupListing>
  /** Sends one text body to a group. @throws SignalRpcError | SignalUnavailableError | SidecarError */
  sendGroupMessage(groupId: string, message: string): Promise<SendResult>
  /**
   * Opens the events stream; resolves once it answered 200 `text/event-stream`. A backend that
   * knows history was lost throws BroadcastRecoveryRequiredError from the iterator.
   */
  openEvents(signal: AbortSignal): Promise<SignalEventStream>
  close(): Promise<void>
}
