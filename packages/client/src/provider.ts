/**
 * E2eColProvider: {@link connectDoc} behind the surface of y-websocket's `WebsocketProvider`
 * (options, events and their arguments, properties), so editor bindings and code written against
 * that shape (y-prosemirror, y-codemirror.next, TipTap's collaboration extensions, Lexical's
 * CollaborationPlugin, y-quill, y-monaco) work unchanged. `sync(true)` fires once the sidecar's
 * copy of the document is applied, as y-websocket's does after the server's sync step 2.
 *
 * `disconnect()` keeps the binding: edits made meanwhile go to the durable outbox and are sent on
 * `connect()`, exactly as when the network drops. Only `destroy()` ends it.
 * @see docs/provider.md
 */
import { ObservableV2 } from 'lib0/observable'
import { Awareness } from 'y-protocols/awareness'
import type * as Y from 'yjs'
import { CLOSE_CODES } from '@e2e-col/protocol'
import type { RecoveryRequired, WebSocketConstructor } from '@e2e-col/transport'
import { connectDoc } from './client.ts'
import { ConnectGate, defaultNetwork, defaultOnline } from './connect-gate.ts'
import type { ClientStatus, ConnectDocOptions, DocConnection, SocketEvent } from './connection.ts'
import type { ChangeState, DeliveryStatus } from './delivery-status.ts'
import { ClientError } from './errors.ts'
import { documentUrl } from './sidecar-url.ts'
import { moveLocalState } from './awareness-channel.ts'

/** y-websocket's status words. */
export type ProviderStatus = 'connected' | 'connecting' | 'disconnected'

/** A WebSocket class as y-websocket's `WebSocketPolyfill` takes it (the browser's own, or `ws`'s). */
export type WebSocketPolyfill =
  | WebSocketConstructor
  | { new (url: string | URL, protocols?: string | string[] | undefined): WebSocket }

/** y-websocket's default: close codes 4400–4499 are permanent (e2e-col's 4409 never is, see below). */
const defaultShouldReconnect = (event: CloseEvent): boolean => !(event.code >= 4400 && event.code < 4500)

/** y-websocket's backoff: 100 ms · 2ⁿ, capped at `maxBackoffTime` (default 2.5 s). */
const DEFAULT_MAX_BACKOFF_MS = 2500

/** Options of {@link E2eColProvider}: y-websocket's, plus anything `connectDoc` takes. */
export interface E2eColProviderOptions extends Omit<
  ConnectDocOptions,
  'doc' | 'sidecarUrl' | 'docId' | 'awareness' | 'WebSocket'
> {
  /** Connect at once (default true); else call {@link E2eColProvider.connect}. */
  readonly connect?: boolean | undefined
  /** The Awareness to carry (default a new one for `doc`); `false` turns presence off. */
  readonly awareness?: Awareness | false | undefined
  /** Presence timing, see `ConnectDocOptions.awareness`: idle wait before a standalone message, and least spacing. */
  readonly presence?: { readonly idleMs?: number; readonly intervalMs?: number } | undefined
  /**
   * y-websocket appends these to the URL. A sidecar takes no URL parameters (it authenticates by
   * origin, on its owner's machine), so a non-empty object is refused (`CLIENT_UNSUPPORTED_OPTION`).
   */
  readonly params?: { [x: string]: string } | undefined
  /** WebSocket subprotocols, passed to the WebSocket constructor. */
  readonly protocols?: string[] | undefined
  /** The WebSocket class to construct (y-websocket's name); default the global `WebSocket`. */
  readonly WebSocketPolyfill?: WebSocketPolyfill | undefined
  /** e2e-col's name for {@link WebSocketPolyfill}; the polyfill wins when both are given. */
  readonly WebSocket?: WebSocketPolyfill | undefined
  /** Ask the sidecar for what this page lacks every this many ms (default: never). */
  readonly resyncInterval?: number | undefined
  /** Longest wait between reconnect attempts, ms (default 2500); ignored when `transport.backoff` is given. */
  readonly maxBackoffTime?: number | undefined
  /** Accepted for y-websocket code: there is no BroadcastChannel here (two tabs are two clients of the sidecar). */
  readonly disableBc?: boolean | undefined
  /**
   * Whether to reconnect after the sidecar closed the connection; default: not after 4400–4499, as
   * y-websocket. 4409 (history at risk: this page must send its full state) always reconnects.
   */
  readonly shouldReconnect?: ((event: CloseEvent, provider: E2eColProvider) => boolean) | undefined
}

/**
 * e2e-col: how far this page's changes have got, weakest first: `browser` (saved in this browser
 * only), `sidecar` (saved by your sidecar, not yet sent), `group` (sent to the Signal group); with
 * Signal's state as the sidecar sees it. See docs/provider.md "Delivery".
 */
export interface ProviderDelivery extends DeliveryStatus {
  /** The weakest state any change of the document is in. */
  readonly state: ChangeState
  /** Changes saved in this browser only (not yet confirmed by the sidecar). */
  readonly pending: number
}

/** Events of {@link E2eColProvider}, with y-websocket's names and arguments first. */
export interface E2eColProviderEvents {
  status: (event: { status: ProviderStatus }) => void
  /** True once local state is loaded and the sidecar's copy applied; false when the connection ends. */
  sync: (state: boolean) => void
  synced: (state: boolean) => void
  /** The socket closed: the runtime's close event, or null when this side closed it (`disconnect()`). */
  'connection-close': (event: CloseEvent | null, provider: E2eColProvider) => void
  /** The socket reported an error (a `connection-close` follows). */
  'connection-error': (event: Event, provider: E2eColProvider) => void
  /** The sidecar closed with a code `shouldReconnect` refused; `connect()` tries again. */
  closed: (event: { code: number; reason: string }, provider: E2eColProvider) => void
  /** e2e-col: local changes not yet confirmed by the sidecar changed. */
  pending: (count: number) => void
  /** e2e-col: everything local has been confirmed by the sidecar ("all changes saved"). */
  saved: (event: { at: number }) => void
  /** e2e-col: {@link ProviderDelivery} changed (a state, a count, Signal's state or a refusal). */
  delivery: (event: ProviderDelivery) => void
  /** e2e-col: Signal accepted these changes (of any page of this document on this sidecar). */
  sent: (event: { readonly messageIds: readonly string[] }) => void
  /** e2e-col: the sidecar may have lost history; a full snapshot goes out on the next connect. */
  recovery: (event: RecoveryRequired) => void
  /** e2e-col: a typed error of the binding (storage, rejected envelope, malformed frame). */
  error: (error: ClientError) => void
}

function toDelivery(status: ClientStatus): ProviderDelivery {
  return { ...status.delivery, state: status.weakest, pending: status.pending }
}

function sameDelivery(a: ProviderDelivery, b: ProviderDelivery): boolean {
  return (
    a.state === b.state &&
    a.pending === b.pending &&
    a.signal === b.signal &&
    a.since === b.since &&
    a.unsent === b.unsent &&
    a.reason === b.reason &&
    a.refused === b.refused
  )
}

function refuseParams(params: { [x: string]: string } | undefined): void {
  if (params !== undefined && Object.keys(params).length > 0) {
    throw new ClientError('CLIENT_UNSUPPORTED_OPTION', 'a sidecar takes no URL parameters (params)')
  }
}

/**
 * A Yjs provider over an e2e-col sidecar: `new E2eColProvider(serverUrl, docId, doc, options)`.
 * @param serverUrl - the sidecar's base URL, e.g. `ws://127.0.0.1:7601`
 * @param roomname - the document's UUID (the "room")
 * @throws ClientError `CLIENT_BAD_DOC_ID`, `CLIENT_BAD_SIDECAR_URL`, `CLIENT_NO_WEBSOCKET`, `CLIENT_UNSUPPORTED_OPTION`
 */
export class E2eColProvider extends ObservableV2<E2eColProviderEvents> {
  readonly doc: Y.Doc
  /** The sidecar's base URL, without trailing slashes (y-websocket's `serverUrl`). */
  readonly serverUrl: string
  readonly roomname: string
  /** The presence instance (always one, as with y-websocket; with `awareness: false` it stays local). */
  readonly awareness: Awareness
  /** The underlying binding, for what only e2e-col has. */
  readonly connection: DocConnection
  readonly protocols: string[]
  readonly disableBc: boolean
  /** No BroadcastChannel: always false. */
  readonly bcconnected = false
  /** Whether to reconnect after the sidecar closed the connection; read at each close. */
  shouldReconnect: (event: CloseEvent, provider: E2eColProvider) => boolean
  /** Connections closed since the last one that synced (y-websocket's counter). */
  wsUnsuccessfulReconnects = 0
  wsconnected = false
  wsconnecting = false
  readonly #maxBackoffTime: number
  readonly #gate: ConnectGate
  readonly #closed: Promise<void>
  #resolveClosed: () => void = () => {}
  #synced = false
  #status: ClientStatus
  #delivery: ProviderDelivery
  #destroyed = false

  constructor(serverUrl: string, roomname: string, doc: Y.Doc, options: E2eColProviderOptions = {}) {
    super()
    const { connect = true, awareness, presence, params, protocols, WebSocketPolyfill, WebSocket, ...more } = options
    const { resyncInterval, maxBackoffTime, disableBc, shouldReconnect, transport, ...rest } = more
    refuseParams(params)
    this.doc = doc
    this.serverUrl = serverUrl.replace(/\/+$/, '')
    this.roomname = roomname
    this.protocols = protocols ?? []
    this.disableBc = disableBc ?? false
    this.shouldReconnect = shouldReconnect ?? defaultShouldReconnect
    this.#maxBackoffTime = maxBackoffTime ?? DEFAULT_MAX_BACKOFF_MS
    this.#closed = new Promise((resolve) => (this.#resolveClosed = resolve))
    const realNetwork = transport?.network !== undefined ? transport.network : defaultNetwork()
    this.#gate = new ConnectGate(connect, realNetwork, transport?.isOnline ?? defaultOnline)
    this.awareness = awareness === false || awareness === undefined ? new Awareness(doc) : awareness
    const WebSocketImpl = (WebSocketPolyfill ?? WebSocket) as WebSocketConstructor | undefined
    this.connection = connectDoc({
      ...rest,
      doc,
      sidecarUrl: this.serverUrl,
      docId: roomname,
      ...(WebSocketImpl === undefined ? {} : { WebSocket: WebSocketImpl }),
      ...(resyncInterval === undefined ? {} : { resyncIntervalMs: resyncInterval }),
      awareness: awareness === false ? false : { ...presence, instance: this.awareness },
      transport: {
        backoff: { baseMs: 200, factor: 2, maxMs: this.#maxBackoffTime },
        ...transport,
        ...(this.protocols.length === 0 ? {} : { protocols: this.protocols }),
        // 4409 asks this page for its full state: giving up would lose the sidecar's history.
        shouldReconnect: ({ code, event }) =>
          code === CLOSE_CODES.HISTORY_AT_RISK || this.shouldReconnect(event as CloseEvent, this),
        network: this.#gate,
        isOnline: () => this.#gate.isOnline(),
      },
    })
    this.#status = this.connection.status()
    this.#delivery = toDelivery(this.#status)
    this.connection.on('status', (status) => this.#onStatus(status))
    this.connection.on('socket', (event) => this.#onSocket(event))
    this.connection.on('saved', (event) => this.emit('saved', [event]))
    this.connection.on('sent', (event) => this.emit('sent', [event]))
    this.connection.on('recovery', (event) => this.emit('recovery', [event]))
    this.connection.on('error', (error) => this.emit('error', [error]))
    if (awareness === false) {
      // Not carried, but still the page's own presence: keyed by the document's current id.
      moveLocalState(this.awareness, doc.clientID)
      this.connection.on('clientId', ({ clientId }) => moveLocalState(this.awareness, clientId))
    }
  }

  /** The document's WebSocket URL on the sidecar: `serverUrl` + `/v1/docs/` + the room. */
  get url(): string {
    return documentUrl(this.serverUrl, this.roomname)
  }

  /** Always empty: a sidecar takes no URL parameters. */
  get params(): { [x: string]: string } {
    return {}
  }

  /** @throws ClientError `CLIENT_UNSUPPORTED_OPTION` for a non-empty object */
  set params(params: { [x: string]: string }) {
    refuseParams(params)
  }

  get maxBackoffTime(): number {
    return this.#maxBackoffTime
  }

  /** The current WebSocket (connecting or open), or null. */
  get ws(): WebSocket | null {
    return this.connection.socket as WebSocket | null
  }

  /** When the last frame from the sidecar arrived (ms), 0 before any. */
  get wsLastMessageReceived(): number {
    return this.connection.lastFrameAt
  }

  /** True once local state is loaded and the sidecar's copy of the document is applied on this connection. */
  get synced(): boolean {
    return this.#synced
  }

  /** As y-websocket's setter: emits `synced` and `sync` when it changes. */
  set synced(state: boolean) {
    if (this.#synced === state) return
    this.#synced = state
    if (state) this.wsUnsuccessfulReconnects = 0
    this.emit('synced', [state])
    this.emit('sync', [state])
  }

  /** Whether the provider wants to be connected; setting it only affects the next (re)connect, as y-websocket. */
  get shouldConnect(): boolean {
    return this.#gate.wanted
  }

  set shouldConnect(wanted: boolean) {
    this.#gate.wanted = wanted && !this.#destroyed
  }

  /** Local changes not yet confirmed by the sidecar. */
  get pending(): number {
    return this.#status.pending
  }

  /** How far this page's changes have got (the `delivery` event's value, current). */
  get delivery(): ProviderDelivery {
    return this.#delivery
  }

  /** Everything local is loaded and confirmed by the sidecar ("all changes saved"); it may not be sent yet. */
  get allSaved(): boolean {
    return this.#status.loaded && this.#status.pending === 0
  }

  /** Everything local has been sent to the group, as far as the sidecar has told. */
  get allSent(): boolean {
    return this.allSaved && this.#status.weakest === 'group'
  }

  /** The binding's full status (connection, pending, last acknowledgement, loaded, synced), as it is now. */
  get clientStatus(): ClientStatus {
    return this.connection.status()
  }

  /** Resolves once {@link destroy} has written the last local checkpoint. */
  get whenDestroyed(): Promise<void> {
    return this.#closed
  }

  connect(): void {
    if (this.#destroyed) return
    this.#gate.set(true)
    // As y-websocket: a connect() while waiting out a backoff (or after a refused close) tries now.
    if (this.#gate.isOnline()) this.connection.reconnectNow()
  }

  /** Sends the presence removal (while the socket is open), then closes it; edits made meanwhile wait in the outbox. */
  disconnect(): void {
    if (this.wsconnected) this.connection.farewell()
    this.#gate.set(false)
  }

  /** No BroadcastChannel here: nothing to connect. */
  connectBc(): void {}

  /** No BroadcastChannel here: nothing to disconnect. */
  disconnectBc(): void {}

  /**
   * Sends the presence removal, closes the socket and ends the binding. The last checkpoint is
   * written in the background; {@link whenDestroyed} resolves when it is.
   */
  override destroy(): void {
    if (this.#destroyed) return
    this.#destroyed = true
    const closed = this.connection.close() // sends the presence removal before anything else
    this.#gate.set(false)
    void closed.finally(() => {
      this.#gate.dispose()
      this.#resolveClosed()
    })
    super.destroy()
  }

  #onSocket(event: SocketEvent): void {
    switch (event.type) {
      case 'attempt':
        this.wsconnecting = true
        this.wsconnected = false
        return this.emit('status', [{ status: 'connecting' }])
      case 'open':
        this.wsconnecting = false
        this.wsconnected = true
        return this.emit('status', [{ status: 'connected' }])
      case 'error':
        return this.emit('connection-error', [event.event as Event, this])
      case 'close':
        return this.#onClose(event.event as CloseEvent | null)
      case 'halted':
        this.#gate.wanted = false
        return this.emit('closed', [{ code: event.code, reason: event.reason }, this])
    }
  }

  /** As y-websocket: `connection-close`, then (if it was open) `sync(false)` and `disconnected`. */
  #onClose(event: CloseEvent | null): void {
    this.emit('connection-close', [event, this])
    this.wsconnecting = false
    this.wsUnsuccessfulReconnects += 1
    if (!this.wsconnected) return
    this.wsconnected = false
    this.synced = false
    this.emit('status', [{ status: 'disconnected' }])
  }

  #onStatus(status: ClientStatus): void {
    const before = this.#status
    this.#status = status
    if (status.pending !== before.pending) this.emit('pending', [status.pending])
    const delivery = toDelivery(status)
    if (!sameDelivery(delivery, this.#delivery)) {
      this.#delivery = delivery
      this.emit('delivery', [delivery])
    }
    this.synced = status.loaded && status.synced && status.connection === 'connected'
  }
}
