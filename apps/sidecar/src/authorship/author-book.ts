/**
 * Who each Yjs client id of one document belongs to: the binding rule of docs/decisions/0023.
 *
 * - A **derived** client id carries an author tag in its high bits (`@e2e-col/protocol` author-id),
 *   and the tag is a hash of one account's number (author-tag.ts): the id is that account's, by
 *   arithmetic, whoever speaks first. It is *verified* once this replica received its content in
 *   the owner's own `update` or the owner's own announcement named it; until then, content relayed
 *   under it (a `sync-response`, a `snapshot`) is marked "relayed by" the member that carried it.
 * - A member's `update` may carry structs only under its own tag: structs under another's tag are
 *   stripped (the gate applies the rest); when the replica held them already they were relayed (an
 *   older page's diff carries what it just applied), otherwise they are a forgery, counted.
 * - An announcement naming an id under another account's tag is refused, counted.
 * - Two accounts whose tags collide: ids under that tag are accepted from either and never shown
 *   as one's (they stay "relayed by").
 * - A **legacy** id (below 2^32, a page before 0023) keeps decision 0021's rule: the first account
 *   that writes or announces it binds it, shown unverified.
 *
 * Bounded: at most `maxPerAccount` bindings per account (its oldest forgotten first) and
 * `maxEntries` in all (relayed marks forgotten before bindings). Every operation is O(1) per client
 * id (per-account ordered sets, keys computed once per call). Kept through a {@link AuthorRows}
 * port, so they survive a restart; rows of a store written before 0023 stay valid.
 */
import { authorTagOf } from '@e2e-col/protocol'
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

/** What the book says of one client id: its author (verified or not), or who relayed it. */
export type Authorship =
  | {
      readonly clientId: number
      readonly author: MemberId
      /** False for a legacy id (first-seen binding): nothing ties it to the account but arrival. */
      readonly verified: boolean
      readonly relayedBy?: undefined
    }
  | { readonly clientId: number; readonly author?: undefined; readonly relayedBy: MemberId }

/** A member's update, judged struct by struct. */
export type Judgement =
  | { readonly ok: false }
  | {
      readonly ok: true
      /** Client id → the clock its structs must be stripped up to (not the sender's to write). */
      readonly strip: ReadonlyMap<number, number>
      /** Stripped ids whose structs the replica did not hold: written under another's id. */
      readonly forged: readonly number[]
      /** Client ids of the sender's own that stay. */
      readonly kept: number
    }

export interface AuthorBook {
  /**
   * The struct client ids of an update one of this sidecar's pages sent; returns those newly bound.
   * `heldBefore` says how far the replica held each client's clock before the update was applied
   * (waiting structs included): only an id the update writes past that is bound (decisions/0023).
   */
  ownUpdate(update: Uint8Array, heldBefore: (clientId: number) => number): number[]
  /**
   * A member's own `update`: what in it is not the sender's (`held` says how far the replica holds
   * each client's clock), and its own ids bound to it.
   */
  memberUpdate(from: MemberId, update: Uint8Array, held: (clientId: number) => number): Judgement
  /**
   * A member's announcement; returns how many ids it named that are not its own. A viewer's names
   * only ids under its own tag (a viewer writes nothing: its legacy ids are not bound).
   */
  announced(from: MemberId, clientIds: readonly number[], viewer?: boolean): number
  /** Content a member relayed (sync-response, snapshot): unknown ids are marked relayed by it. */
  relayed(from: MemberId, update: Uint8Array): void
  /** True when `from` may speak for `clientId` (presence): its tag, or a legacy id bound to it. */
  speaksFor(from: MemberId, clientId: number): boolean
  /**
   * The group's listed members: the number of each ACI (a member the daemon names by ACI only has
   * its tag through it), and who holds which tag (a tag two accounts hold verifies no one).
   */
  members(listed: readonly MemberId[]): void
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
  /** The author tag of an account's number (author-tag.ts; injected by tests). */
  readonly tagOfNumber: (number: string) => number
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
  return shares(keysOf(a), keysOf(b))
}

/** An account's keys, computed once: its number's and its ACI's (either may be missing). */
interface Keys {
  readonly n: string | undefined
  readonly u: string | undefined
  /** The key its bindings are counted under. */
  readonly primary: string
}

function keysOf(m: MemberId): Keys {
  const n = m.number === undefined || m.number === '' ? undefined : `n:${m.number}`
  const u = m.uuid === undefined || m.uuid === '' ? undefined : `u:${m.uuid.toLowerCase()}`
  return { n, u, primary: n ?? u ?? '' }
}

const shares = (a: Keys, b: Keys): boolean => (a.n !== undefined && a.n === b.n) || (a.u !== undefined && a.u === b.u)

interface Entry {
  readonly account: MemberId
  readonly keys: Keys
  readonly relayed: boolean
}

/** A member as one call sees it: keys and author tag worked out once. */
interface Speaker {
  readonly id: MemberId
  readonly keys: Keys
  readonly tag: number | undefined
}

const idOf = (row: AuthorRow): MemberId => ({
  ...(row.number === '' ? {} : { number: row.number }),
  ...(row.uuid === '' ? {} : { uuid: row.uuid }),
})

// Accounts whose tag the book remembers (listed members and senders); a group has at most ~1000.
const MAX_TAGGED_ACCOUNTS = 4096

/** Who holds which tag: members seen with their tags worked out, ACIs mapped to numbers, collisions noted. */
function tagRegistry(tagOfNumber: (number: string) => number) {
  // Tag → the number holding it; tags two numbers hold; ACI → number, from the listing.
  const tagHolder = new Map<number, string>()
  const collided = new Set<number>()
  let numbers = new Map<string, string>()

  function note(tag: number, number: string): void {
    const holder = tagHolder.get(tag)
    if (holder === undefined) {
      if (tagHolder.size >= MAX_TAGGED_ACCOUNTS) tagHolder.delete(tagHolder.keys().next().value as number)
      tagHolder.set(tag, number)
    } else if (holder !== number) collided.add(tag)
  }

  function speaker(m: MemberId): Speaker {
    const listed = m.uuid === undefined || m.uuid === '' ? undefined : numbers.get(m.uuid.toLowerCase())
    const number = m.number !== undefined && m.number !== '' ? m.number : listed
    const id = number !== undefined && m.number !== number ? { ...m, number } : m
    const tag = number === undefined ? undefined : tagOfNumber(number)
    if (tag !== undefined && number !== undefined) note(tag, number)
    return { id, keys: keysOf(id), tag }
  }

  return {
    speaker,
    collided: (tag: number) => collided.has(tag),
    /** Whether some account this book knows (listed or heard) holds `tag`. */
    held: (tag: number) => tagHolder.has(tag),
    members(listed: readonly MemberId[]): void {
      numbers = new Map()
      for (const m of listed) if (m.uuid && m.number) numbers.set(m.uuid.toLowerCase(), m.number)
      for (const m of listed) speaker(m)
    },
  }
}

/** What the book says of one id: relayed, or its author, verified when the tag is the author's. */
function authorshipOf(
  clientId: number,
  e: Entry,
  tags: Pick<ReturnType<typeof tagRegistry>, 'collided' | 'held'>,
  tagOfNumber: (number: string) => number,
): Authorship {
  if (e.relayed) return { clientId, relayedBy: e.account }
  // A derived id is bound only by its tag's holder (claim), unless the tag turned out shared; one
  // bound first-seen under a tag nobody known holds (unclaimed) is not verified.
  const tag = authorTagOf(clientId)
  const number = e.account.number
  const verified =
    tag !== undefined && !tags.collided(tag) && tags.held(tag) && number !== undefined && tagOfNumber(number) === tag
  return { clientId, author: e.account, verified }
}

export function createAuthorBook(o: AuthorBookOptions): AuthorBook {
  // Insertion order is age: a re-bound id is deleted and set again.
  const book = new Map<number, Entry>()
  // Each account's bindings, oldest first, and the relayed marks: what is forgotten first, without a walk.
  const byAccount = new Map<string, Set<number>>()
  const relayedIds = new Set<number>()
  const tags = tagRegistry(o.tagOfNumber)
  const { speaker } = tags
  const self = speaker(o.self)

  function drop(clientId: number): void {
    const e = book.get(clientId)
    if (e === undefined) return
    book.delete(clientId)
    if (e.relayed) return void relayedIds.delete(clientId)
    const ids = byAccount.get(e.keys.primary)
    ids?.delete(clientId)
    if (ids?.size === 0) byAccount.delete(e.keys.primary)
  }

  function insert(clientId: number, account: MemberId, keys: Keys, relayed: boolean): void {
    book.set(clientId, { account, keys, relayed })
    if (relayed) relayedIds.add(clientId)
    else {
      let ids = byAccount.get(keys.primary)
      if (ids === undefined) byAccount.set(keys.primary, (ids = new Set()))
      ids.add(clientId)
    }
  }

  for (const row of o.rows.load()) {
    const account = idOf(row)
    // A sidecar before 0023 bound a derived id to whoever wrote it first: that row is only "relayed by".
    const tag = authorTagOf(row.clientId)
    const foreign = tag !== undefined && (row.number === '' || o.tagOfNumber(row.number) !== tag)
    drop(row.clientId)
    insert(row.clientId, account, keysOf(account), row.relayed || foreign)
  }

  /** Forgets these ids (each the oldest of its kind). */
  function forget(ids: readonly number[]): void {
    for (const id of ids) drop(id)
    if (ids.length > 0) o.rows.remove(ids)
  }

  function put(clientId: number, s: Pick<Speaker, 'id' | 'keys'>, relayed: boolean): void {
    drop(clientId)
    const mine = byAccount.get(s.keys.primary)
    if (!relayed && mine !== undefined && mine.size >= o.maxPerAccount) forget([mine.values().next().value as number])
    if (book.size >= o.maxEntries) {
      const oldest = relayedIds.size > 0 ? relayedIds.values().next().value : book.keys().next().value
      forget([oldest as number])
    }
    insert(clientId, s.id, s.keys, relayed)
    o.rows.put({ clientId, number: s.id.number ?? '', uuid: s.id.uuid ?? '', relayed })
  }

  // A member with no listed number (number privacy) holds no tag here: under a tag nobody known holds
  // its ids are taken like legacy ones (first writer, unverified); a known holder's tag stays theirs.
  const unclaimed = (s: Speaker, tag: number): boolean => s.tag === undefined && !tags.held(tag)

  /** Binds `clientId` to `s` if that is its rule: newly bound, already so, or not `s`'s to claim. */
  function claim(s: Speaker, clientId: number, viewer = false): 'bound' | 'kept' | 'refused' {
    const tag = authorTagOf(clientId)
    const e = book.get(clientId)
    if (tag !== undefined && !unclaimed(s, tag)) {
      if (s.tag !== tag) return 'refused'
      if (tags.collided(tag)) {
        // Either holder may write under it; it is credited to neither.
        if (e !== undefined) return 'kept'
        put(clientId, s, true)
        return 'bound'
      }
      if (e !== undefined && !e.relayed && shares(e.keys, s.keys)) return 'kept'
      put(clientId, s, false)
      return 'bound'
    }
    if (viewer) return 'refused'
    if (e !== undefined && !e.relayed) return shares(e.keys, s.keys) ? 'kept' : 'refused'
    put(clientId, s, false)
    return 'bound'
  }

  return {
    ownUpdate(update, heldBefore) {
      // A page passes on what it applied: another account's structs, or what a member relayed under
      // this account's tag (a whole-state snapshot after close 4409), marked or no longer marked.
      // Only new writing binds.
      const written = [...(structClients(update) ?? [])].filter(([id, r]) => heldBefore(id) < r.to)
      return o.rows.batch(() => written.filter(([id]) => claim(self, id) === 'bound').map(([id]) => id))
    },
    memberUpdate(from, update, held) {
      const clients = structClients(update)
      if (clients === undefined) return { ok: false }
      const s = speaker(from)
      const strip = new Map<number, number>()
      const forged: number[] = []
      const own: number[] = []
      for (const [id, range] of clients) {
        const tag = authorTagOf(id)
        const e = book.get(id)
        const theirs =
          tag !== undefined && !unclaimed(s, tag)
            ? s.tag === tag
            : e === undefined || e.relayed
              ? held(id) < range.to // legacy: a new one is bound to its first writer, a known one passed on
              : shares(e.keys, s.keys)
        if (theirs) own.push(id)
        else {
          strip.set(id, range.to)
          if (held(id) < range.to) forged.push(id)
        }
      }
      o.rows.batch(() => {
        for (const id of own) claim(s, id)
      })
      return { ok: true, strip, forged, kept: own.length }
    },
    announced(from, clientIds, viewer = false) {
      const s = speaker(from)
      let refused = 0
      o.rows.batch(() => {
        for (const id of clientIds) if (claim(s, id, viewer) === 'refused') refused += 1
      })
      return refused
    },
    relayed(from, update) {
      const clients = structClients(update)
      if (clients === undefined) return
      const fresh = [...clients.keys()].filter((id) => !book.has(id))
      if (fresh.length === 0) return
      const s = speaker(from)
      o.rows.batch(() => fresh.forEach((id) => put(id, s, true)))
    },
    speaksFor(from, clientId) {
      const s = speaker(from)
      const tag = authorTagOf(clientId)
      if (tag !== undefined && !unclaimed(s, tag)) return s.tag === tag
      const e = book.get(clientId)
      return e !== undefined && !e.relayed && shares(e.keys, s.keys)
    },
    members: tags.members,
    ownIds(limit) {
      const own = [...(byAccount.get(self.keys.primary) ?? [])]
      return own.slice(-limit)
    },
    entries: () => [...book].map(([clientId, e]) => authorshipOf(clientId, e, tags, o.tagOfNumber)),
  }
}
