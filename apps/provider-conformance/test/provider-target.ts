/**
 * What the conformance scenarios need from a provider and its server, whichever they are: the
 * y-websocket surface both providers share, and a target that opens them for two people.
 */
import type { Awareness } from 'y-protocols/awareness'
import type * as Y from 'yjs'

/** Two people; for e2e-col each has their own sidecar, for y-websocket they share the server. */
export type Person = 'alice' | 'bob'

/** The y-websocket surface the scenarios use; `WebsocketProvider` and `E2eColProvider` both have it. */
export interface ConformingProvider {
  readonly doc: Y.Doc
  readonly awareness: Awareness
  readonly synced: boolean
  readonly wsconnected: boolean
  readonly wsconnecting: boolean
  readonly shouldConnect: boolean
  readonly roomname: string
  readonly url: string
  readonly serverUrl: string
  readonly ws: WebSocket | null
  readonly wsUnsuccessfulReconnects: number
  connect(): void
  disconnect(): void
  destroy(): void
}

/** y-websocket's options the scenarios pass (the same object goes to either provider). */
export interface CommonOptions {
  readonly connect?: boolean
  readonly awareness?: Awareness
  readonly maxBackoffTime?: number
  readonly resyncInterval?: number
  readonly protocols?: string[]
  readonly params?: Record<string, string>
  /** Instead of the person's server (e.g. one where nothing listens). */
  readonly serverUrl?: string
  /** Instead of the target's room. */
  readonly room?: string
  /** Wraps the WebSocket class the target would pass (y-websocket's `WebSocketPolyfill`). */
  readonly wrapWebSocket?: (base: unknown) => unknown
}

/** An opened provider and what it emitted, in order: `status:connecting`, `sync:true`, `connection-close:1006`, … */
export interface Opened {
  readonly provider: ConformingProvider
  readonly log: string[]
  /** Subscribes to `sync` with the provider's own types. */
  onSync(listener: (state: boolean) => void): void
}

export interface ProviderTarget {
  readonly kind: 'y-websocket' | 'e2e-col'
  /** The room all scenarios share (for e2e-col the shared document's UUID); scenarios use their own Y types in it. */
  readonly room: string
  /** A base URL where nothing listens. */
  readonly deadUrl: string
  /** @throws whatever the provider's constructor throws */
  open(who: Person, doc: Y.Doc, options?: CommonOptions): Opened
  /** The person's server closes every connection (going away) and then accepts again. */
  restartServer(who: Person): Promise<void>
  close(): Promise<void>
}

/** The provider's events as log lines: each target subscribes with its provider's own types. */
export function logLine(event: string, value?: unknown): string {
  if (event === 'connection-close') {
    const code = (value as { code?: unknown } | null)?.code
    return `connection-close:${value === null ? 'null' : typeof code === 'number' ? 'code' : 'no-code'}`
  }
  if (event === 'status') return `status:${(value as { status: string }).status}`
  if (event === 'sync') return `sync:${String(value)}`
  return event
}

/** The events the log records, as both providers' `on` takes them. */
export interface LoggedEvents {
  on(name: 'status', listener: (event: { status: 'connected' | 'disconnected' | 'connecting' }) => void): void
  on(name: 'sync', listener: (state: boolean) => void): void
  on(name: 'connection-close', listener: (event: CloseEvent | null) => void): void
  on(name: 'connection-error', listener: (event: Event) => void): void
}

/** A provider just opened, with its events logged from now on. */
export function logged(provider: ConformingProvider & LoggedEvents): Opened {
  const log: string[] = []
  provider.on('status', (event) => log.push(logLine('status', event)))
  provider.on('sync', (state) => log.push(logLine('sync', state)))
  provider.on('connection-close', (event) => log.push(logLine('connection-close', event)))
  provider.on('connection-error', () => log.push(logLine('connection-error')))
  return { provider, log, onSync: (listener) => provider.on('sync', listener) }
}
