/**
 * WebSocketTransport: one browser ⇄ sidecar connection for one document, kept alive.
 *
 * Binary frames only (each frame is one encoded envelope; this layer never looks inside).
 * Reconnects with {@link nextDelay}; the attempt counter resets only after a connection has stayed
 * open for `stableAfterMs`, so a sidecar that accepts and immediately closes (auth failure, 1008,
 * overload) is retried with growing delays instead of being hammered (y-websocket PR #74).
 * Close code 4409 raises `recoveryRequired`; 4403 (the page's origin is not allowed) halts unless
 * `shouldReconnect` says otherwise; 1011 and every other code simply reconnect.
 */
import { DEFAULT_BACKOFF, nextDelay, type BackoffOptions } from './backoff.ts'
import { CLOSE_CODES } from '@e2e-col/protocol'
import { Emitter } from './emitter.ts'
import { TransportError } from './errors.ts'

/** The part of the WHATWG WebSocket this transport uses (the browser global and `ws` both fit). */
export interface WebSocketLike {
  binaryType: string
  readonly readyState: number
  send(data: Uint8Array): void
  close(code?: number, reason?: string): void
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: never) => void): void
}

/** A WebSocket constructor: `globalThis.WebSocket` in browsers, `ws`'s `WebSocket` in Node. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike

/** How a socket ended: the runtime's close event, or null when this side closed it (stop, offline, timeout). */
export interface SocketClose {
  readonly code: number
  readonly reason: string
  /** The `CloseEvent` as the WebSocket gave it; null when the transport closed the socket itself. */
  readonly event: unknown
}

/** Connection state as the UI shows it. `offline` = not connected and waiting (retry timer or no network). */
export type TransportStatus = 'connecting' | 'connected' | 'offline'

/** Payload of the `recoveryRequired` event. */
export interface RecoveryRequired {
  readonly reason: 'sidecar-history-risk'
  /** Local count of frames handed to sockets so far; see {@link WebSocketTransport.sendSequence}. */
  readonly sendSequence: number
}

/** Events of {@link WebSocketTransport}. */
export interface TransportEvents extends Record<string, unknown> {
  /** A new socket is being opened. */
  attempt: { readonly attempt: number }
  open: { readonly attempt: number }
  frame: Uint8Array
  /** The socket reported an error (the runtime's event); a `close` follows. */
  error: { readonly event: unknown }
  close: SocketClose
  /** The server closed with a code `shouldReconnect` refused: no retry until {@link WebSocketTransport.reconnectNow} or `online`. */
  halted: { readonly code: number; readonly reason: string }
  status: TransportStatus
  recoveryRequired: RecoveryRequired
}

/** The window-like object whose `online`/`offline` events the transport follows. */
export interface NetworkEvents {
  addEventListener(type: 'online' | 'offline', listener: () => void): void
  removeEventListener(type: 'online' | 'offline', listener: () => void): void
}

/** Options of {@link WebSocketTransport}. */
export interface TransportOptions {
  /** The sidecar's document URL, `ws://HOST:PORT/v1/docs/<docUUID>`. */
  readonly url: string
  /** WebSocket constructor (y-websocket's `WebSocketPolyfill`). */
  readonly WebSocket: WebSocketConstructor
  readonly backoff?: BackoffOptions
  /** A connection open this long resets the backoff attempt counter. Default 5000 ms. */
  readonly stableAfterMs?: number
  /** An attempt that has not opened after this long is abandoned and retried. Default 10000 ms. */
  readonly connectTimeoutMs?: number
  /** Random source for jitter, [0, 1). Default `Math.random`. */
  readonly random?: () => number
  /** Source of `online`/`offline` events; default: `window` when present, none in Node. */
  readonly network?: NetworkEvents | null
  /** Whether the network is up right now; default `navigator.onLine` when present, else true. */
  readonly isOnline?: () => boolean
  /** WebSocket subprotocols, passed to the constructor when given. */
  readonly protocols?: string | string[]
  /**
   * Whether to reconnect after the server closed with this code (y-websocket's `shouldReconnect`).
   * Default: always. Not asked when this side closed the socket.
   */
  readonly shouldReconnect?: (close: {
    readonly code: number
    readonly reason: string
    readonly event: unknown
  }) => boolean
}

const OPEN = 1

/**
 * Keeps one WebSocket to the sidecar open, reconnecting as needed. Call {@link start} once.
 * @throws TransportError `TRANSPORT_BAD_URL` when the URL is not ws: or wss:
 */
export class WebSocketTransport {
  readonly #options: TransportOptions
  readonly #events = new Emitter<TransportEvents>()
  readonly #backoff: BackoffOptions
  readonly #random: () => number
  #socket: WebSocketLike | undefined
  #status: TransportStatus = 'offline'
  #attempt = 0
  #retryTimer: ReturnType<typeof setTimeout> | undefined
  #connectTimer: ReturnType<typeof setTimeout> | undefined
  #stableTimer: ReturnType<typeof setTimeout> | undefined
  #started = false
  #stopped = false
  #sendSequence = 0
  readonly #onOnline = (): void => this.#handleOnline()
  readonly #onOffline = (): void => this.#handleOffline()

  constructor(options: TransportOptions) {
    let protocol: string
    try {
      protocol = new URL(options.url).protocol
    } catch (cause) {
      throw new TransportError('TRANSPORT_BAD_URL', 'sidecar URL is not a valid URL', { cause })
    }
    if (protocol !== 'ws:' && protocol !== 'wss:') {
      throw new TransportError('TRANSPORT_BAD_URL', `sidecar URL must be ws: or wss:, got ${protocol}`)
    }
    this.#options = options
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF
    this.#random = options.random ?? Math.random
  }

  /** Current connection status. */
  get status(): TransportStatus {
    return this.#status
  }

  /** The current socket (connecting or open), or null. */
  get socket(): WebSocketLike | null {
    return this.#socket ?? null
  }

  /**
   * Number of frames handed to an open socket since this transport was created.
   *
   * It is a local diagnostic counter for recovery events only: it is NOT a wire sequence number,
   * frames handed to a socket may still be lost when it closes, and it must not be used to detect
   * gaps (the envelope's per-sender `seq` exists for that).
   */
  get sendSequence(): number {
    return this.#sendSequence
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof TransportEvents>(event: K, listener: (value: TransportEvents[K]) => void): () => void {
    return this.#events.on(event, listener)
  }

  /** Starts connecting (and following online/offline). Idempotent. */
  start(): void {
    if (this.#started || this.#stopped) return
    this.#started = true
    const network = this.#network()
    network?.addEventListener('online', this.#onOnline)
    network?.addEventListener('offline', this.#onOffline)
    if (this.#isOnline()) this.#connect()
    else this.#setStatus('offline')
  }

  /**
   * Sends one binary frame if the socket is open.
   * @returns true when handed to an open socket, false when not connected (the caller keeps it)
   * @throws TransportError `TRANSPORT_CLOSED` after {@link stop}
   */
  send(frame: Uint8Array): boolean {
    if (this.#stopped) throw new TransportError('TRANSPORT_CLOSED', 'transport was stopped')
    const socket = this.#socket
    if (socket === undefined || socket.readyState !== OPEN) return false
    socket.send(frame)
    this.#sendSequence += 1
    return true
  }

  /** Closes the socket for good and stops reconnecting. Idempotent. */
  stop(): void {
    if (this.#stopped) return
    this.#stopped = true
    const network = this.#network()
    network?.removeEventListener('online', this.#onOnline)
    network?.removeEventListener('offline', this.#onOffline)
    this.#clearTimers()
    this.#dropSocket(CLOSE_CODES.NORMAL, 'client stopped', true)
    this.#setStatus('offline')
  }

  /** Skips a pending retry delay and connects now (for a "retry now" button). */
  reconnectNow(): void {
    if (this.#stopped || !this.#started || this.#socket !== undefined) return
    this.#connect()
  }

  #network(): NetworkEvents | null {
    if (this.#options.network !== undefined) return this.#options.network
    return typeof window !== 'undefined' && typeof window.addEventListener === 'function' ? window : null
  }

  #isOnline(): boolean {
    if (this.#options.isOnline !== undefined) return this.#options.isOnline()
    return typeof navigator === 'undefined' || navigator.onLine !== false
  }

  #connect(): void {
    this.#clearTimers()
    this.#setStatus('connecting')
    this.#events.emit('attempt', { attempt: this.#attempt })
    let socket: WebSocketLike
    const protocols = this.#options.protocols
    try {
      socket =
        protocols === undefined
          ? new this.#options.WebSocket(this.#options.url)
          : new this.#options.WebSocket(this.#options.url, protocols)
    } catch {
      // Constructors throw synchronously on e.g. a blocked port; treat it like a refused connection.
      this.#scheduleRetry()
      return
    }
    socket.binaryType = 'arraybuffer'
    this.#socket = socket
    const connectTimeoutMs = this.#options.connectTimeoutMs ?? 10_000
    this.#connectTimer = setTimeout(() => {
      if (this.#socket === socket && socket.readyState !== OPEN) {
        this.#dropSocket(CLOSE_CODES.NORMAL, 'connect timeout', true)
        this.#scheduleRetry()
      }
    }, connectTimeoutMs)

    socket.addEventListener('open', () => {
      if (this.#socket !== socket) return
      clearTimeout(this.#connectTimer)
      const attempt = this.#attempt
      // Reset the backoff only once the connection proved stable, not on `open`.
      this.#stableTimer = setTimeout(() => {
        this.#attempt = 0
      }, this.#options.stableAfterMs ?? 5_000)
      this.#setStatus('connected')
      this.#events.emit('open', { attempt })
    })
    socket.addEventListener('message', (event: { data: unknown }) => {
      if (this.#socket !== socket) return
      const frame = toBytes(event.data)
      // Text frames are not part of the browser protocol; ignore them rather than guess.
      if (frame !== undefined) this.#events.emit('frame', frame)
    })
    socket.addEventListener('close', (event: { code: number; reason: string }) => {
      if (this.#socket !== socket) return
      this.#socket = undefined
      const close = { code: event.code, reason: event.reason, event }
      this.#reportClose(close)
      if (event.code === CLOSE_CODES.HISTORY_AT_RISK) {
        this.#events.emit('recoveryRequired', { reason: 'sidecar-history-risk', sendSequence: this.#sendSequence })
      }
      // A `close` listener may have stopped the transport, or reconnected already (a socket of its own).
      if (this.#stopped || this.#socket !== undefined) return
      // Without a rule of the caller's, a refused origin is final: retrying cannot change it.
      const reconnect = this.#options.shouldReconnect?.(close) ?? event.code !== CLOSE_CODES.ORIGIN_NOT_ALLOWED
      if (!reconnect) {
        this.#clearTimers()
        this.#setStatus('offline')
        this.#events.emit('halted', { code: event.code, reason: event.reason })
      } else if (this.#isOnline()) this.#scheduleRetry()
      else this.#setStatus('offline')
    })
    // 'error' is always followed by 'close' in both browsers and ws: reported, the close decides.
    socket.addEventListener('error', (event: unknown) => {
      if (this.#socket === socket) this.#events.emit('error', { event })
    })
  }

  #scheduleRetry(): void {
    this.#clearTimers()
    const delay = nextDelay(this.#attempt, this.#random, this.#backoff)
    this.#attempt += 1
    this.#setStatus('offline')
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined
      if (!this.#stopped && this.#isOnline()) this.#connect()
    }, delay)
  }

  #handleOnline(): void {
    if (this.#stopped || this.#socket !== undefined) return
    // The network just came back: connect now rather than sit out a long backoff delay.
    this.#connect()
  }

  #handleOffline(): void {
    if (this.#stopped) return
    this.#clearTimers()
    // A socket may linger for minutes after the network went away; drop it and wait for `online`.
    this.#dropSocket(CLOSE_CODES.NORMAL, 'network offline', true)
    this.#setStatus('offline')
  }

  /** Closes the socket from this side; `report` emits `close` with a null event (as y-websocket's local close). */
  #dropSocket(code: number, reason: string, report: boolean): void {
    const socket = this.#socket
    this.#socket = undefined
    if (socket === undefined) return
    try {
      socket.close(code, reason)
    } catch {
      // Closing a socket that is still CONNECTING throws in some runtimes; it is abandoned either way.
    }
    if (report) this.#reportClose({ code, reason, event: null })
  }

  /** Listeners of `close` already read `offline` (a page rendering its status then shows the truth); `status` follows. */
  #reportClose(close: SocketClose): void {
    const was = this.#status
    this.#status = 'offline'
    this.#events.emit('close', close)
    if (was !== 'offline' && this.#status === 'offline') this.#events.emit('status', 'offline')
  }

  #clearTimers(): void {
    clearTimeout(this.#retryTimer)
    clearTimeout(this.#connectTimer)
    clearTimeout(this.#stableTimer)
    this.#retryTimer = undefined
    this.#connectTimer = undefined
    this.#stableTimer = undefined
  }

  #setStatus(status: TransportStatus): void {
    if (this.#status === status) return
    this.#status = status
    this.#events.emit('status', status)
  }
}

function toBytes(data: unknown): Uint8Array | undefined {
  if (data instanceof ArrayBuffer) return new Uint8Array(data)
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
  return undefined
}
