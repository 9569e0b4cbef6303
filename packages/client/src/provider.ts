/**
 * E2eColProvider: {@link connectDoc} behind the surface of y-websocket's `WebsocketProvider`, so
 * editor bindings and tutorials written against that shape (y-prosemirror, y-codemirror.next,
 * TipTap's collaboration extensions, y-quill, y-monaco) work unchanged.
 *
 * `disconnect()` keeps the binding: edits made meanwhile go to the durable outbox and are sent on
 * `connect()`, exactly as when the network drops. Only `destroy()` ends it.
 */
import { ObservableV2 } from 'lib0/observable'
import { Awareness } from 'y-protocols/awareness'
import type * as Y from 'yjs'
import type { NetworkEvents, RecoveryRequired } from '@e2e-col/transport'
import { connectDoc } from './client.ts'
import type { ClientStatus, ConnectDocOptions, DocConnection } from './connection.ts'
import type { ChangeState, DeliveryStatus } from './delivery-status.ts'
import { ClientError } from './errors.ts'

/** y-websocket's status words. */
export type ProviderStatus = 'connected' | 'connecting' | 'disconnected'

/** Options of {@link E2eColProvider}: y-websocket's, plus anything `connectDoc` takes. */
export interface E2eColProviderOptions extends Omit<ConnectDocOptions, 'doc' | 'sidecarUrl' | 'docId' | 'awareness'> {
  /** Connect at once (default true); else call {@link E2eColProvider.connect}. */
  readonly connect?: boolean
  /** The Awareness to carry (default a new one for `doc`); `false` turns presence off. */
  readonly awareness?: Awareness | false
  /** Presence timing, see `ConnectDocOptions.awareness`: idle wait before a standalone message, and least spacing. */
  readonly presence?: { readonly idleMs?: number; readonly intervalMs?: number }
  /**
   * y-websocket appends these to the URL. A sidecar takes no URL parameters (it authenticates by
   * origin, on its owner's machine), so a non-empty object is refused rather than silently dropped.
   */
  readonly params?: Record<string, string>
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
  sync: (synced: boolean) => void
  synced: (synced: boolean) => void
  'connection-close': (event: { reason: string }, provider: E2eColProvider) => void
  'connection-error': (event: { reason: string }, provider: E2eColProvider) => void
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

/**
 * A gate in front of the real network: the transport sees "offline" while the provider is
 * disconnected, and the real network's `online` only while it wants to be connected.
 */
class ConnectGate implements NetworkEvents {
  wanted: boolean
  readonly #listeners = { online: new Set<() => void>(), offline: new Set<() => void>() }
  readonly #realOnline: () => boolean
  readonly dispose: () => void

  constructor(wanted: boolean, real: NetworkEvents | null, realOnline: () => boolean) {
    this.wanted = wanted
    this.#realOnline = realOnline
    const online = (): void => {
      if (this.wanted) this.#fire('online')
    }
    const offline = (): void => this.#fire('offline')
    real?.addEventListener('online', online)
    real?.addEventListener('offline', offline)
    this.dispose = () => {
      real?.removeEventListener('online', online)
      real?.removeEventListener('offline', offline)
    }
  }

  isOnline(): boolean {
    return this.wanted && this.#realOnline()
  }

  addEventListener(type: 'online' | 'offline', listener: () => void): void {
    this.#listeners[type].add(listener)
  }

  removeEventListener(type: 'online' | 'offline', listener: () => void): void {
    this.#listeners[type].delete(listener)
  }

  set(wanted: boolean): void {
    if (this.wanted === wanted) return
    this.wanted = wanted
    if (wanted && !this.#realOnline()) return
    this.#fire(wanted ? 'online' : 'offline')
  }

  #fire(type: 'online' | 'offline'): void {
    for (const listener of this.#listeners[type]) listener()
  }
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

function defaultNetwork(): NetworkEvents | null {
  return typeof window !== 'undefined' && typeof window.addEventListener === 'function' ? window : null
}

function defaultOnline(): boolean {
  return typeof navigator === 'undefined' || navigator.onLine !== false
}

/**
 * A Yjs provider over an e2e-col sidecar: `new E2eColProvider(sidecarUrl, docId, doc, options)`.
 * @param serverUrl - the sidecar's base URL, e.g. `ws://127.0.0.1:7601`
 * @param roomname - the document's UUID (the "room")
 * @throws ClientError `CLIENT_BAD_DOC_ID`, `CLIENT_BAD_SIDECAR_URL`, `CLIENT_NO_WEBSOCKET`, `CLIENT_UNSUPPORTED_OPTION`
 */
export class E2eColProvider extends ObservableV2<E2eColProviderEvents> {
  readonly doc: Y.Doc
  readonly url: string
  readonly roomname: string
  /** The presence instance (always one, as with y-websocket; with `awareness: false` it stays local). */
  readonly awareness: Awareness
  /** The underlying binding, for what only e2e-col has. */
  readonly connection: DocConnection
  readonly #gate: ConnectGate
  #synced = false
  #status: ClientStatus
  #delivery: ProviderDelivery
  #destroyed = false

  constructor(serverUrl: string, roomname: string, doc: Y.Doc, options: E2eColProviderOptions = {}) {
    super()
    const { connect = true, awareness, presence, params, transport, ...rest } = options
    if (params !== undefined && Object.keys(params).length > 0) {
      throw new ClientError('CLIENT_UNSUPPORTED_OPTION', 'a sidecar takes no URL parameters (params)')
    }
    this.doc = doc
    this.url = serverUrl
    this.roomname = roomname
    const realNetwork = transport?.network !== undefined ? transport.network : defaultNetwork()
    this.#gate = new ConnectGate(connect, realNetwork, transport?.isOnline ?? defaultOnline)
    this.awareness = awareness === false || awareness === undefined ? new Awareness(doc) : awareness
    this.connection = connectDoc({
      ...rest,
      doc,
      sidecarUrl: serverUrl,
      docId: roomname,
      awareness: awareness === false ? false : { ...presence, instance: this.awareness },
      transport: { ...transport, network: this.#gate, isOnline: () => this.#gate.isOnline() },
    })
    this.#status = this.connection.status()
    this.#delivery = toDelivery(this.#status)
    this.connection.on('status', (status) => this.#onStatus(status))
    this.connection.on('saved', (event) => this.emit('saved', [event]))
    this.connection.on('sent', (event) => this.emit('sent', [event]))
    this.connection.on('recovery', (event) => this.emit('recovery', [event]))
    this.connection.on('error', (error) => this.emit('error', [error]))
  }

  /** True once local state is loaded and the sidecar connection is open (see docs/provider.md). */
  get synced(): boolean {
    return this.#synced
  }

  get wsconnected(): boolean {
    return this.#status.connection === 'connected'
  }

  get wsconnecting(): boolean {
    return this.#status.connection === 'connecting'
  }

  /** Whether the provider wants to be connected (y-websocket's `shouldConnect`). */
  get shouldConnect(): boolean {
    return this.#gate.wanted
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

  /** The binding's full status (connection, pending, last acknowledgement, loaded). */
  get clientStatus(): ClientStatus {
    return this.#status
  }

  connect(): void {
    if (!this.#destroyed) this.#gate.set(true)
  }

  disconnect(): void {
    this.#gate.set(false)
  }

  /** Flushes, checkpoints and closes for good; resolves when local state is written. */
  override destroy(): Promise<void> {
    if (this.#destroyed) return Promise.resolve()
    this.#destroyed = true
    const closed = this.connection.close().finally(() => this.#gate.dispose())
    super.destroy()
    return closed
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
    if (status.connection !== before.connection) {
      if (before.connection === 'connected') this.emit('connection-close', [{ reason: 'connection lost' }, this])
      else if (before.connection === 'connecting' && this.#gate.wanted) {
        this.emit('connection-error', [{ reason: 'connection attempt failed' }, this])
      }
      this.emit('status', [{ status: status.connection === 'offline' ? 'disconnected' : status.connection }])
    }
    const synced = status.loaded && status.connection === 'connected'
    if (synced !== this.#synced) {
      this.#synced = synced
      this.emit('sync', [synced])
      this.emit('synced', [synced])
    }
  }
}
