/** The public shapes of a document binding: options, status, events and the connection handle. */
import type {
  RecoveryRequired,
  SocketClose,
  TransportOptions,
  WebSocketConstructor,
  WebSocketLike,
} from '@e2e-col/transport'
import type { Awareness } from 'y-protocols/awareness'
import type * as Y from 'yjs'
import type { Timers } from '@e2e-col/sync'
import type { ClientError } from './errors.ts'
import type { PageLifecycle } from './page-lifecycle.ts'
import type { ChangeState, DeliveryStatus } from './delivery-status.ts'
import type { ClientStorage } from './storage.ts'
import type { AuthorTagCache } from './derived-client-id.ts'
import type { DeliveryNote } from '@e2e-col/protocol'

/** Transaction origin of updates that came from peers. */
export const REMOTE_ORIGIN: unique symbol = Symbol('e2e-col remote')
/** Transaction origin of updates restored from local storage. */
export const LOAD_ORIGIN: unique symbol = Symbol('e2e-col load')
/** Transaction origin of the page-hide rescue folded back in: the binding sends the last page's own part of what is new. */
export const RESCUE_ORIGIN: unique symbol = Symbol('e2e-col rescue')

/** Options of `connectDoc`. */
export interface ConnectDocOptions {
  readonly doc: Y.Doc
  /** The sidecar's base URL, e.g. `ws://127.0.0.1:8788`. */
  readonly sidecarUrl: string
  /** The document's UUID (canonical lowercase). */
  readonly docId: string
  /** Default: IndexedDB, one database per document, scoped by the sidecar's host. */
  readonly storage?: ClientStorage
  /** Default: the global `WebSocket`. */
  readonly WebSocket?: WebSocketConstructor
  /**
   * Minimum time between two sent updates, ms. Default 250. A burst of edits far faster than typing
   * (a paste, an import) that stops mid-window is sent 20 ms after its last edit instead.
   */
  readonly flushWindowMs?: number
  /** Pending updates up to which a flush also tries `Y.mergeUpdates` (keeping the smaller); above it, only a state-vector diff. Default 1024. */
  readonly mergeLimit?: number
  /** Quiet time before the full state is checkpointed, ms. Default 1000 (and at most every 10 s while busy). */
  readonly checkpointDelayMs?: number
  /** Unacknowledged updates that trigger outbox compaction while disconnected. Default 32. */
  readonly compactAt?: number
  /** Random delay range before answering a sync request, ms. Default 20–300. */
  readonly syncResponseDelayMs?: { readonly min: number; readonly max: number }
  /**
   * Presence over the sidecar (y-protocols awareness). Default off. A changed local state rides
   * behind the next edit; alone, it is sent after `idleMs` without an edit (default 1000) and at most
   * once per `intervalMs` (default 10000). `instance`: an existing Awareness of this `doc` to use (as
   * y-websocket's `awareness` option). See docs/provider.md "Presence".
   */
  readonly awareness?: false | { readonly idleMs?: number; readonly intervalMs?: number; readonly instance?: Awareness }
  /**
   * Hold after the sidecar refuses a frame as too many on the connection, ms: nothing is sent for
   * `min` (doubling on repeats, up to `max`), then every unacknowledged change is sent again.
   * Default 1000–16000. See send-hold.ts.
   */
  readonly rateLimitHoldMs?: { readonly min: number; readonly max: number }
  /** Ask the sidecar for what this page lacks every this many ms while connected (y-websocket's `resyncInterval`). Default: never. */
  readonly resyncIntervalMs?: number
  readonly random?: () => number
  readonly timers?: Timers
  /** Reconnect tuning and online/offline source, passed to the transport. */
  readonly transport?: Pick<
    TransportOptions,
    'backoff' | 'stableAfterMs' | 'connectTimeoutMs' | 'network' | 'isOnline' | 'protocols' | 'shouldReconnect'
  >
  /** Default: `visibilitychange`/`pagehide` in browsers, none in Node. */
  readonly lifecycle?: PageLifecycle | null
  /**
   * Where the account's author tag (decision 0023) is kept between page loads, so the document's
   * client id is derived before the first edit. Default: `localStorage` per sidecar host where
   * there is one; null keeps none (the id is derived once the sidecar says the tag).
   */
  readonly authorTagCache?: AuthorTagCache | null
}

/** What the UI shows. */
export interface ClientStatus {
  readonly connection: 'connecting' | 'connected' | 'offline'
  /** Local changes saved in this browser only: not yet acknowledged by the sidecar (including ones still being coalesced). */
  readonly pending: number
  /** How far acknowledged changes have got: the sidecar's view of Signal, and what it still holds. */
  readonly delivery: DeliveryStatus
  /** The weakest state of any change: `browser` (this computer only), `sidecar` (saved by your sidecar, not yet sent), `group` (sent). */
  readonly weakest: ChangeState
  /** `Date.now()`-style time of the last acknowledgement (saved by the sidecar), or null. */
  readonly lastAckAt: number | null
  /** True once the local checkpoint and outbox are loaded into the document. */
  readonly loaded: boolean
  /** True once the sidecar's answer to this connection's sync request is applied: the document holds the sidecar's copy. */
  readonly synced: boolean
}

/** What happened to the socket, as y-websocket reports it: each attempt, its opening, errors and closes. */
export type SocketEvent =
  | { readonly type: 'attempt' }
  | { readonly type: 'open' }
  | { readonly type: 'error'; readonly event: unknown }
  | ({ readonly type: 'close' } & SocketClose)
  /** The sidecar closed with a code `shouldReconnect` refused: no retry until asked. */
  | { readonly type: 'halted'; readonly code: number; readonly reason: string }

/** Events of a {@link DocConnection}. */
export interface DocConnectionEvents extends Record<string, unknown> {
  status: ClientStatus
  /** Everything local has been acknowledged by the sidecar (saved by your sidecar). */
  saved: { readonly at: number }
  /** Signal accepted these changes (of any page of this document on this sidecar). */
  sent: { readonly messageIds: readonly string[] }
  /** The sidecar's note as it came (Signal's state, what it holds). */
  delivery: DeliveryNote
  error: ClientError
  /** The sidecar may have lost history this client relied on; a full snapshot is sent on the next connect. */
  recovery: RecoveryRequired
  socket: SocketEvent
  /** `doc.clientID` changed (derived from the account's author tag, or replaced by Yjs); presence followed. */
  clientId: { readonly before: number; readonly clientId: number }
}

/** A bound document. */
export interface DocConnection {
  readonly docId: string
  /** Resolves once local state is loaded and the transport started; rejects never. */
  readonly ready: Promise<void>
  /** The installation's sender id, once {@link ready}. */
  readonly senderId: string | undefined
  /** The awareness instance when enabled, else null. */
  readonly awareness: Awareness | null
  /** The account's author tag once known (cached or said by the sidecar): the document writes under ids carrying it. */
  readonly authorTag: number | undefined
  status(): ClientStatus
  on<K extends keyof DocConnectionEvents>(event: K, listener: (value: DocConnectionEvents[K]) => void): () => void
  /** Flushes coalesced edits and waits until they are in storage. */
  flush(): Promise<void>
  /** The current WebSocket (connecting or open), or null. */
  readonly socket: WebSocketLike | null
  /** Time (the `timers` clock, ms) the last frame from the sidecar arrived, 0 before any. */
  readonly lastFrameAt: number
  /** Tells peers this page's presence is gone for now (before a deliberate disconnect); the next connect announces it again. */
  farewell(): void
  /** Skips a pending retry delay and connects now. */
  reconnectNow(): void
  /** Sends the presence removal, then flushes, checkpoints and disconnects; the document stays usable locally. */
  close(): Promise<void>
}
