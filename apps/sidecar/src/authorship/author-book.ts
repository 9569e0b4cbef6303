/**
 * Who each Yjs client id of one document belongs to: the binding rule of docs/decisions/0021.
 *
 * - The client ids of this sidecar's own pages (the structs of the updates they send) are this
 *   account's; it announces them in a `health` record (`authors`, protocol §3.12).
 * - A client id first seen in a member's own `update`, or named in its announcement, is that member's.
 * - An `update` from a member carrying structs of a client id bound to another account is refused
 *   whole: a forgery, or a struct squatting the owner's next clock.
 * - Content relayed in a `sync-response` or `snapshot` is accepted (catch-up needs it); its unbound
 *   client ids are marked "relayed by" the member until their author's own update or announcement
 *   binds them. A binding is never moved: the first one stands.
 *
 * Bounded: at most `maxPerAccount` bindings per account (its oldest forgotten first, so one member
 * naming many ids cannot push out another's) and `maxEntries` in all (relayed marks forgotten
 * before bindings). Kept through a {@link AuthorRows} port, so they survive a restart.
 */
import type { MemberId } from '../group/roster.ts'
import { structClients } from './client-ids.ts'

/** One stored row: a binding, or a relayed mark (`relayed`), with the account it names. */
export interface AuthorRow {
  readonly clientId: number
  readonly number: string
  readonly uuid: string
  readonly relayed: boolean
}

/** The document's rows in the store, bound to its id. */
export interface AuthorRows {
  /** Every row, oldest first. */
  load(): readonly AuthorRow[]
  put(row: AuthorRow): void
  remove(clientIds: readonly number[]): void
  /** Runs `fn`'s writes as one commit (a catch-up may name thousands of client ids). */
  batch<T>(fn: () => T): T
}

/** What the book says of one client id. */
export type Authorship =
  | { readonly clientId: number; readonly author: MemberId; readonly relayedBy?: undefined }
  | { readonly clientId: number; readonly author?: undefined; readonly relayedBy: MemberId }

/** A member's update, judged. `owner` is the account a refused struct's client id belongs to. */
export type Verdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly clientId: number; readonly owner: MemberId }
  | { readonly ok: false; readonly clientId?: undefined; readonly reason: 'not-an-update' }

export interface AuthorBook {
  /** The struct client ids of an update one of this sidecar's pages sent; returns those newly bound. */
  ownUpdate(update: Uint8Array): number[]
  /** A member's own `update`: refused when it writes under another account's client id, else bound. */
  memberUpdate(from: MemberId, update: Uint8Array): Verdict
  /** A member's announcement; returns how many ids it named that belong to someone else. */
  announced(from: MemberId, clientIds: readonly number[]): number
  /** Content a member relayed (sync-response, snapshot): unbound ids are marked relayed by it. */
  relayed(from: MemberId, update: Uint8Array): void
  /** This account's newest client ids, at most `limit` (what an announcement names). */
  ownIds(limit: number): number[]
  /** Everything known, oldest first. */
  entries(): Authorship[]
}

export interface AuthorBookOptions {
  readonly self: MemberId
  readonly rows: AuthorRows
  readonly maxPerAccount: number
  readonly maxEntries: number
}

/** The keys an account is known by (ACI and number); two ids sharing one are one account. */
export function accountKeys(m: MemberId): string[] {
  return [
    ...(m.uuid === undefined || m.uuid === '' ? [] : [`u:${m.uuid.toLowerCase()}`]),
    ...(m.number === undefined || m.number === '' ? [] : [`n:${m.number}`]),
  ]
}

/** True when both name the same account (they share a number or an ACI). */
export function sameAccount(a: MemberId, b: MemberId): boolean {
  const keys = new Set(accountKeys(a))
  return accountKeys(b).some((k) => keys.has(k))
}

interface Entry {
  readonly account: MemberId
  readonly relayed: boolean
}

const idOf = (row: AuthorRow): MemberId => ({
  ...(row.number === '' ? {} : { number: row.number }),
  ...(row.uuid === '' ? {} : { uuid: row.uuid }),
})

export function createAuthorBook(o: AuthorBookOptions): AuthorBook {
  // Insertion order is age: a re-bound id is deleted and set again.
  const book = new Map<number, Entry>()
  for (const row of o.rows.load()) book.set(row.clientId, { account: idOf(row), relayed: row.relayed })

  function countOf(account: MemberId): number {
    let n = 0
    for (const e of book.values()) if (!e.relayed && sameAccount(e.account, account)) n += 1
    return n
  }

  /** Forgets the oldest rows that match, at most `n`. */
  function forget(n: number, match: (e: Entry) => boolean): void {
    const gone: number[] = []
    for (const [id, e] of book) {
      if (gone.length >= n) break
      if (match(e)) gone.push(id)
    }
    for (const id of gone) book.delete(id)
    if (gone.length > 0) o.rows.remove(gone)
  }

  function put(clientId: number, account: MemberId, relayed: boolean): void {
    if (!relayed && countOf(account) >= o.maxPerAccount) forget(1, (e) => !e.relayed && sameAccount(e.account, account))
    book.delete(clientId)
    if (book.size >= o.maxEntries) {
      forget(1, (e) => e.relayed)
      if (book.size >= o.maxEntries) forget(1, () => true)
    }
    book.set(clientId, { account, relayed })
    o.rows.put({ clientId, number: account.number ?? '', uuid: account.uuid ?? '', relayed })
  }

  /** Binds `clientId` to `account` unless bound already; true when it is newly bound. */
  function bind(clientId: number, account: MemberId): boolean {
    const e = book.get(clientId)
    if (e !== undefined && !e.relayed) return false
    put(clientId, account, false)
    return true
  }

  return {
    ownUpdate(update) {
      const clients = structClients(update)
      if (clients === undefined) return []
      return o.rows.batch(() => [...clients.keys()].filter((id) => bind(id, o.self)))
    },
    memberUpdate(from, update) {
      const clients = structClients(update)
      if (clients === undefined) return { ok: false, reason: 'not-an-update' }
      for (const id of clients.keys()) {
        const e = book.get(id)
        if (e !== undefined && !e.relayed && !sameAccount(e.account, from))
          return { ok: false, clientId: id, owner: e.account }
      }
      o.rows.batch(() => {
        for (const id of clients.keys()) bind(id, from)
      })
      return { ok: true }
    },
    announced(from, clientIds) {
      let foreign = 0
      o.rows.batch(() => {
        for (const id of clientIds) {
          const e = book.get(id)
          if (e !== undefined && !e.relayed && !sameAccount(e.account, from)) foreign += 1
          else bind(id, from)
        }
      })
      return foreign
    },
    relayed(from, update) {
      const fresh = [...(structClients(update)?.keys() ?? [])].filter((id) => !book.has(id))
      if (fresh.length > 0) o.rows.batch(() => fresh.forEach((id) => put(id, from, true)))
    },
    ownIds(limit) {
      const own = [...book].filter(([, e]) => !e.relayed && sameAccount(e.account, o.self)).map(([id]) => id)
      return own.slice(-limit)
    },
    entries: () =>
      [...book].map(([clientId, e]) =>
        e.relayed ? { clientId, relayedBy: e.account } : { clientId, author: e.account },
      ),
  }
}
