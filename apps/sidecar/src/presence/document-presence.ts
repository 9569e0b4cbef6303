/**
 * The presence of one document as this sidecar last saw it, from its pages and from the group: a
 * y-protocols Awareness kept as a mirror (its own state stays null, so it shows no one). It makes
 * presence tell the truth, as y-websocket's server does:
 * - a page that connects is greeted with every current state at once, instead of waiting up to
 *   15 s for each peer's renewal;
 * - when a page's socket closes, the states that page announced are removed, and the removal goes
 *   to the other pages and the group, so no one keeps a ghost caret for 30 s.
 * A page that said goodbye itself (destroy, page hide) has no state left here, so its closing
 * socket costs no second Signal send. Payloads from the group are untrusted: a malformed one is
 * dropped, and at most {@link MAX_PRESENCE_CLIENTS} states are kept.
 * @see docs/provider.md "Presence"
 */
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness'
import * as Y from 'yjs'

/** States kept per document; what would go beyond is dropped from the mirror (it still reaches the pages). */
export const MAX_PRESENCE_CLIENTS = 256

/** The part of a browser session presence needs. */
export interface PresencePage {
  send(frame: Uint8Array): void
}

export interface DocumentPresenceOptions {
  /** The pages attached now (the document's own set). */
  readonly pages: ReadonlySet<PresencePage>
  /** Wraps an awareness payload into one of the sidecar's own envelopes. */
  readonly frame: (payload: Uint8Array) => Uint8Array
  /** Sends an awareness payload to the document's group. */
  readonly toGroup: (payload: Uint8Array) => void
  readonly maxClients?: number
}

export interface DocumentPresence {
  /** An awareness payload from a page (`page`) or from the group (none); false when it was malformed. */
  seen(payload: Uint8Array, page?: PresencePage): boolean
  /** Sends every current state to a page that just connected (nothing when no one is present). */
  greet(page: PresencePage): void
  /** The page's socket closed: what it still showed is removed here, on the other pages and in the group. */
  leave(page: PresencePage): void
  dispose(): void
}

const GROUP: unique symbol = Symbol('group')

export function createDocumentPresence(o: DocumentPresenceOptions): DocumentPresence {
  const maxClients = o.maxClients ?? MAX_PRESENCE_CLIENTS
  const mirror = new Awareness(new Y.Doc())
  mirror.setLocalState(null)
  // Its 3 s expiry check (y-protocols) runs until dispose(), which the document's close calls.
  const owned = new Map<PresencePage, Set<number>>()
  let added: number[] = []
  let disposed = false

  mirror.on(
    'update',
    (change: { added: number[]; updated: number[]; removed: number[] }, origin: PresencePage | typeof GROUP) => {
      added = change.added
      if (origin === GROUP) return
      const ids = owned.get(origin) ?? new Set<number>()
      for (const id of [...change.added, ...change.updated]) ids.add(id)
      for (const id of change.removed) ids.delete(id)
      owned.set(origin, ids)
    },
  )

  const states = (): number[] => [...mirror.getStates().keys()]

  return {
    seen(payload, page) {
      added = []
      try {
        applyAwarenessUpdate(mirror, payload, page ?? GROUP)
      } catch {
        return false
      }
      if (mirror.getStates().size > maxClients) {
        removeAwarenessStates(mirror, added, GROUP)
        if (page !== undefined) for (const id of added) owned.get(page)?.delete(id)
      }
      return true
    },
    greet(page) {
      const present = states()
      if (present.length > 0) page.send(o.frame(encodeAwarenessUpdate(mirror, present)))
    },
    leave(page) {
      // Sockets closed by the sidecar's own stop: peers expire these states; nothing more is sent.
      if (disposed) return
      const ids = owned.get(page)
      owned.delete(page)
      const present = [...(ids ?? [])].filter((id) => mirror.getStates().has(id))
      if (present.length === 0) return
      removeAwarenessStates(mirror, present, GROUP)
      // A removed peer's state encodes as null at its last clock, which every receiver applies as "gone".
      const removal = encodeAwarenessUpdate(mirror, present)
      const frame = o.frame(removal)
      for (const other of o.pages) if (other !== page) other.send(frame)
      o.toGroup(removal)
    },
    dispose() {
      disposed = true
      mirror.destroy()
      owned.clear()
    },
  }
}
