/**
 * Presence (y-protocols awareness) over the sidecar, priced for Signal.
 *
 * Over Signal every message counts against the group's pace, so presence rides on edits: when an
 * edit envelope goes out, the local state (if it changed) is sent right behind it, and the
 * sidecar's send queue packs both into the same Signal message. A standalone presence message is
 * sent only when no edit carried the change within `idleMs`, and never sooner than `intervalMs`
 * after the previous presence message. Peers' states expire after y-protocols' 30 s without news
 * ({@link PEER_EXPIRY_MS}); the local state is renewed every 15 s by y-protocols, so an idle
 * page sends one standalone message per max(15 s, intervalMs).
 * @see docs/provider.md "Presence"
 */
import {
  Awareness,
  applyAwarenessUpdate,
  encodeAwarenessUpdate,
  outdatedTimeout,
  removeAwarenessStates,
} from 'y-protocols/awareness'
import type * as Y from 'yjs'
import type { Timers } from '@e2e-col/sync'

/** A peer not heard from for this long is removed (y-protocols' `outdatedTimeout`). */
export const PEER_EXPIRY_MS: number = outdatedTimeout
/** Default wait for an edit to carry a presence change before it is sent on its own, ms. */
export const DEFAULT_PRESENCE_IDLE_MS = 1000
/** Default least time between two standalone presence messages, ms. */
export const DEFAULT_PRESENCE_INTERVAL_MS = 10_000

/**
 * Moves `awareness` to the client id `to`: y-protocols keys the local presence by the id the
 * document had when the Awareness was made, and editor bindings tell their own caret by the
 * document's current id. The local state (if any) is removed under the old id (its clock bumped,
 * so peers drop it) and set again under the new one.
 * @returns whether a local state moved (its removal and new state are for peers to hear)
 */
export function moveLocalState(awareness: Awareness, to: number): boolean {
  const before = awareness.clientID
  if (before === to) return false
  const state = awareness.getLocalState()
  if (state !== null) removeAwarenessStates(awareness, [before], 'client-id-changed')
  awareness.clientID = to
  if (state === null) return false
  // A new id's first state has clock 0, which peers ignore (y-protocols applies a greater clock only).
  if (!awareness.meta.has(to)) awareness.meta.set(to, { clock: 0, lastUpdated: Date.now() })
  awareness.setLocalState(state)
  return true
}

/** Options of {@link AwarenessChannel}. */
export interface AwarenessChannelOptions {
  readonly idleMs: number
  readonly intervalMs: number
  readonly timers: Timers
  readonly send: (payload: Uint8Array) => void
  readonly remoteOrigin: unknown
  /** Use this Awareness (of the same doc) instead of a new one. */
  readonly instance?: Awareness | undefined
}

/** Owns (or borrows) an {@link Awareness} for one document and decides when its state is sent. */
export class AwarenessChannel {
  readonly awareness: Awareness
  readonly #options: AwarenessChannelOptions
  #timer: unknown = undefined
  #dirty = false
  #lastStandaloneAt = Number.NEGATIVE_INFINITY
  /** The local state taken away when the page was left, to put back if it comes back (bfcache). */
  #leftState: { [x: string]: unknown } | null = null
  readonly #onUpdate: (change: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => void

  constructor(doc: Y.Doc, options: AwarenessChannelOptions) {
    this.awareness = options.instance ?? new Awareness(doc)
    this.#options = options
    this.#onUpdate = (change, origin) => {
      if (origin === options.remoteOrigin) return
      // Only our own entry is ours to send (a local removal of a peer is not news for others).
      const ours = this.awareness.clientID
      if (change.added.includes(ours) || change.updated.includes(ours) || change.removed.includes(ours))
        this.#markDirty()
    }
    this.awareness.on('update', this.#onUpdate)
  }

  /**
   * Sends the local state now (after a (re)connect: peers may have expired or removed us). The
   * clock is renewed first: a peer (or the sidecar) that saw our removal at the current clock
   * would ignore the same clock again.
   */
  announce(): void {
    const state = this.awareness.getLocalState()
    if (state !== null) this.awareness.setLocalState(state)
    this.#sendNow()
  }

  /**
   * Tells peers this page is gone for now, without changing the local state (y-websocket's
   * `disconnect()`): a removal at the current clock, which {@link announce} supersedes.
   */
  farewell(): void {
    this.#cancel()
    this.#dirty = false
    this.#options.send(encodeAwarenessUpdate(this.awareness, [this.awareness.clientID], new Map()))
  }

  /** The page is being left (pagehide): the local state is removed and the removal sent at once. */
  leave(): void {
    const state = this.awareness.getLocalState()
    if (state === null) return
    this.#leftState = state
    removeAwarenessStates(this.awareness, [this.awareness.clientID], 'pagehide')
    this.#sendNow()
  }

  /** The page came back from the back-forward cache: the state {@link leave} removed is set again. */
  rejoin(): void {
    const state = this.#leftState
    this.#leftState = null
    if (state === null || this.awareness.getLocalState() !== null) return
    this.awareness.setLocalState(state)
    this.#sendNow()
  }

  /**
   * The connection is gone: every peer's state is removed, as y-websocket does on close. Their
   * clocks are forgotten too, so the sidecar's presence greeting on the next connect applies
   * even at the clocks already seen.
   */
  forgetPeers(): void {
    const ours = this.awareness.clientID
    const peers = [...this.awareness.getStates().keys()].filter((id) => id !== ours)
    removeAwarenessStates(this.awareness, peers, this.#options.remoteOrigin)
    for (const id of this.awareness.meta.keys()) if (id !== ours) this.awareness.meta.delete(id)
  }

  /**
   * The document's client id changed (derived from the account, or replaced by Yjs): the local
   * state moves to the new id ({@link moveLocalState}). The removal under the old id goes first, on
   * its own (a sidecar that refuses the old id drops only that), then the state under the new one.
   */
  follow(doc: Y.Doc): void {
    const before = this.awareness.clientID
    if (!moveLocalState(this.awareness, doc.clientID)) return
    this.#options.send(encodeAwarenessUpdate(this.awareness, [before]))
    this.#sendNow()
  }

  /** An edit envelope just went out: send a changed local state right behind it. */
  ride(): void {
    if (this.#dirty) this.#sendNow()
  }

  /**
   * Applies a peer's awareness update.
   * @throws Error from y-protocols on a malformed payload
   */
  apply(payload: Uint8Array): void {
    applyAwarenessUpdate(this.awareness, payload, this.#options.remoteOrigin)
  }

  /** Tells peers we left, then stops. */
  dispose(): void {
    this.#cancel()
    this.awareness.off('update', this.#onUpdate)
    removeAwarenessStates(this.awareness, [this.awareness.clientID], 'dispose')
    this.#sendNow()
    // An Awareness handed in belongs to the caller (as with y-websocket's provider).
    if (this.#options.instance === undefined) this.awareness.destroy()
  }

  #markDirty(): void {
    this.#dirty = true
    if (this.#timer !== undefined) return
    const now = this.#options.timers.now()
    const at = Math.max(now + this.#options.idleMs, this.#lastStandaloneAt + this.#options.intervalMs)
    this.#timer = this.#options.timers.setTimeout(() => {
      this.#timer = undefined
      if (!this.#dirty) return
      this.#lastStandaloneAt = this.#options.timers.now()
      this.#sendNow()
    }, at - now)
  }

  #cancel(): void {
    if (this.#timer === undefined) return
    this.#options.timers.clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #sendNow(): void {
    this.#dirty = false
    this.#cancel()
    this.#options.send(encodeAwarenessUpdate(this.awareness, [this.awareness.clientID]))
  }
}
