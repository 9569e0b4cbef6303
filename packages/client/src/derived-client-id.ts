/**
 * Account-derived client ids on the page (docs/decisions/0023): once this page's sidecar has said
 * its account's author tag (the `delivery` note's `author`), the document writes under
 * `clientIdFor(tag, random)`, an id no other member's sidecar will let anyone but this account use.
 *
 * The tag is cached per sidecar (localStorage, where there is one), so on the next page load the id
 * is derived when the binding is made, before the first local edit. Yjs replaces `doc.clientID`
 * by a random one of its own when a remote update carries the page's id; the id is then derived
 * again (same tag, new random part) once that transaction is cleaned up, before anything is
 * written under the replacement.
 */
import { authorTagOf, clientIdFor, isAuthorTag } from '@e2e-col/protocol'
import type * as Y from 'yjs'

/** Where a page keeps its sidecar's author tag between loads. */
export interface AuthorTagCache {
  read(): number | undefined
  write(tag: number): void
}

/** The localStorage key of the tag of the sidecar at `host` (as the IndexedDB store's prefix). */
export function authorTagKey(host: string): string {
  return `e2e-col-author-tag@${host}`
}

interface StorageLike {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

/**
 * The tag cache of the sidecar at `host` in `localStorage`, or null where there is none (Node, a
 * worker, storage blocked by the browser). A failing read or write is a cache miss, never an error.
 */
export function localAuthorTagCache(host: string): AuthorTagCache | null {
  let storage: StorageLike | undefined
  try {
    storage = (globalThis as { localStorage?: StorageLike }).localStorage
  } catch {
    return null // a sandboxed page throws on the getter
  }
  if (storage === undefined || storage === null) return null
  const key = authorTagKey(host)
  const store = storage
  return {
    read() {
      try {
        const tag = Number(store.getItem(key) ?? Number.NaN)
        return isAuthorTag(tag) ? tag : undefined
      } catch {
        return undefined
      }
    },
    write(tag) {
      try {
        store.setItem(key, String(tag))
      } catch {
        // full or blocked: the next load derives the id once the sidecar says the tag again
      }
    },
  }
}

/** A tag cache in memory (tests; pages without localStorage). */
export function memoryAuthorTagCache(tag?: number): AuthorTagCache & { tag: number | undefined } {
  return {
    tag,
    read() {
      return this.tag
    },
    write(next) {
      this.tag = next
    },
  }
}

/** A fresh client id carrying `tag`, its low bits from the platform's cryptographic random source. */
export function derivedClientId(tag: number): number {
  const draw = new Uint32Array(1)
  globalThis.crypto.getRandomValues(draw)
  return clientIdFor(tag, draw[0] ?? 0)
}

/**
 * Switches `doc` to a derived id when its current one does not carry `tag`.
 * @returns the id switched away from, or undefined when nothing changed
 */
export function deriveClientId(doc: Y.Doc, tag: number): number | undefined {
  if (authorTagOf(doc.clientID) === tag) return undefined
  const before = doc.clientID
  doc.clientID = derivedClientId(tag)
  return before
}

/** Switches `doc` to an id derived from the cached tag, if one is cached. */
export function deriveFromCache(doc: Y.Doc, cache: AuthorTagCache | null): void {
  const tag = cache?.read()
  if (tag !== undefined) deriveClientId(doc, tag)
}

export interface ClientIdFollowerOptions {
  readonly doc: Y.Doc
  readonly cache: AuthorTagCache | null
  /** `doc.clientID` changed from `before` (presence moves to the new id). */
  readonly onSwitch: (before: number) => void
}

/** Keeps `doc` writing under an id carrying its sidecar's author tag. */
export class ClientIdFollower {
  readonly #o: ClientIdFollowerOptions
  #tag: number | undefined
  /** The id presence was last told about (Yjs may have replaced doc.clientID since). */
  #announced: number
  readonly #onCleanup = (): void => this.#rederive()

  constructor(options: ClientIdFollowerOptions) {
    this.#o = options
    this.#tag = options.cache?.read()
    if (this.#tag !== undefined) deriveClientId(options.doc, this.#tag)
    this.#announced = options.doc.clientID
    options.doc.on('afterTransactionCleanup', this.#onCleanup)
  }

  /** The author tag the page writes under, once known. */
  get tag(): number | undefined {
    return this.#tag
  }

  /** The sidecar said the account's tag: cached for the next load, and the id derived if needed. */
  setTag(tag: number): void {
    if (tag !== this.#tag) this.#o.cache?.write(tag)
    this.#tag = tag
    this.#rederive()
  }

  detach(): void {
    this.#o.doc.off('afterTransactionCleanup', this.#onCleanup)
  }

  /** After setTag, or after any transaction (Yjs may have replaced the id in its cleanup). */
  #rederive(): void {
    const { doc } = this.#o
    if (this.#tag !== undefined) deriveClientId(doc, this.#tag)
    if (doc.clientID === this.#announced) return
    const before = this.#announced
    this.#announced = doc.clientID
    this.#o.onSwitch(before)
  }
}
