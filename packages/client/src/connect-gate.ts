/**
 * A gate in front of the real network for {@link E2eColProvider}: the transport sees "offline"
 * while the provider does not want to be connected, and the real network's `online` only while it
 * does.
 */
import type { NetworkEvents } from '@e2e-col/transport'

export class ConnectGate implements NetworkEvents {
  /** Whether the provider wants a connection (y-websocket's `shouldConnect`); setting it fires nothing. */
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

  /** Wants (or no longer wants) a connection, and tells the transport at once. */
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

/** `window` in browsers (its `online`/`offline`), none in Node. */
export function defaultNetwork(): NetworkEvents | null {
  return typeof window !== 'undefined' && typeof window.addEventListener === 'function' ? window : null
}

/** `navigator.onLine` where there is one, else true. */
export function defaultOnline(): boolean {
  return typeof navigator === 'undefined' || navigator.onLine !== false
}
