/**
 * A document's side of authorship (authorship/author-book.ts): its pages' client ids bound to this
 * account and announced to the group; from a member's update, the structs written under another
 * account's client id are stripped before the replica sees them (those the replica did not hold
 * yet are forgeries: counted, logged once per member), and an update left with nothing of the
 * sender's is dropped; content relayed in a sync answer or snapshot is marked "relayed by"; the
 * members' announcements are read.
 * @see docs/decisions/0023-account-derived-client-ids.md, docs/sidecar.md §4.12
 */
import { decodeHealth, MAX_ANNOUNCED_AUTHORS, type Kind } from '@e2e-col/protocol'
import type { Timers } from '@e2e-col/sync'
import * as Y from 'yjs'
import type { AuthorBook, Authorship } from '../authorship/author-book.ts'
import { accountKeys } from '../authorship/author-book.ts'
import { structClients } from '../authorship/client-ids.ts'
import { placeableDeletes } from '../authorship/placeable-deletes.ts'
import type { MemberId } from '../group/roster.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'

// Members whose refused updates were logged; beyond, the oldest may be logged again.
const MAX_LOGGED = 256

export interface AuthorGateParts {
  readonly docId: string
  readonly book: AuthorBook
  /** How far the replica holds a client's clock (Yjs's state for it). */
  readonly held: (clientId: number) => number
  /** The same, counting the structs Yjs keeps waiting for missing pieces (read once per call). */
  readonly heldOrWaiting: () => (clientId: number) => number
  /** Sends an announcement (a health payload) to the group. */
  readonly announce: (clientIds: readonly number[]) => void
  /**
   * A new client id of this account is announced at once (queued beside the edit that brought it,
   * it rides in that edit's send); those that follow within this window wait for its end, so a
   * burst of them goes in one announcement.
   */
  readonly announceDelayMs: number
  readonly timers: Timers
  /** Runs a step that writes the store; undefined when it failed (the sidecar then stops). */
  storing<T>(fn: () => T): T | undefined
  readonly metrics: Metrics
  readonly logger: Logger
}

export interface AuthorGate {
  /** How far the replica holds each client `update` writes under, read now, before it is applied. */
  holding(update: Uint8Array): (clientId: number) => number
  /**
   * Content one of this sidecar's pages (or the sidecar itself) wrote, applied: its new client ids
   * are announced. `heldBefore` is {@link holding}'s answer from before it was applied.
   */
  fromPage(update: Uint8Array, heldBefore: (clientId: number) => number): void
  /**
   * Content from a member: what of it the replica applies (an update stripped of the structs that
   * are not the sender's to write), or undefined when nothing is left of it.
   */
  admit(kind: Kind, payload: Uint8Array, from: MemberId | undefined): Uint8Array | undefined
  /** A member's health payload: the client ids it announces under its own tag become verified. */
  health(from: MemberId | undefined, payload: Uint8Array, viewer?: boolean): void
  /** True when `from` may show or remove presence under `clientId`. */
  speaksFor(from: MemberId | undefined, clientId: number): boolean
  /** The group's listed members (who holds which author tag). */
  members(listed: readonly MemberId[]): void
  /** Every client id of this account (oldest first, at most the book keeps per account), for announcements. */
  ownIds(): number[]
  authors(): Authorship[]
  /** Stops the pending announcement's timer. */
  dispose(): void
}

/** `update` without the structs below each client's clock in `upTo` (its delete set stays whole). */
function stripped(update: Uint8Array, upTo: ReadonlyMap<number, number>): Uint8Array | undefined {
  try {
    return Y.diffUpdate(update, Y.encodeStateVector(new Map(upTo)))
  } catch {
    return undefined
  }
}

/** True when the update deletes something (its delete set names a client). */
function deletes(update: Uint8Array): boolean {
  try {
    return Y.decodeUpdate(update).ds.clients.size > 0
  } catch {
    return false
  }
}

export function createAuthorGate(p: AuthorGateParts): AuthorGate {
  const { book, metrics, logger } = p

  /** `update` deleting only what exists (placeable-deletes.ts); undefined when it cannot be cut. */
  function existing(update: Uint8Array): Uint8Array | undefined {
    const carried = structClients(update)
    if (carried === undefined) return update // not an update: the replica refuses it
    const placed = placeableDeletes(update, (c) => Math.max(p.held(c), carried.get(c)?.to ?? 0))
    if (!placed.ok) return void metrics.receivedDropped.inc({ reason: 'invalid-payload' })
    if (placed.cut > 0) metrics.receivedDropped.inc({ reason: 'unplaceable-delete' }, placed.cut)
    return placed.update
  }
  const logged = new Set<string>()
  let pending: number[] = []
  let timer: unknown

  function flush(): void {
    const ids = pending
    pending = []
    for (let at = 0; at < ids.length; at += MAX_ANNOUNCED_AUTHORS) p.announce(ids.slice(at, at + MAX_ANNOUNCED_AUTHORS))
  }

  function logOnce(from: MemberId, message: string, fields: object): void {
    const key = accountKeys(from)[0] ?? ''
    if (logged.has(key)) return
    logged.add(key)
    if (logged.size > MAX_LOGGED) logged.delete(logged.values().next().value as string)
    logger.warn({ docId: p.docId, member: from.number ?? from.uuid, ...fields }, message)
  }

  return {
    holding(update) {
      // Waiting structs count as held: a page's whole-state snapshot carries them too.
      const now = p.heldOrWaiting()
      const held = new Map<number, number>()
      for (const id of structClients(update)?.keys() ?? []) held.set(id, now(id))
      return (clientId) => held.get(clientId) ?? 0
    },
    fromPage(update, heldBefore) {
      const fresh = p.storing(() => book.ownUpdate(update, heldBefore)) ?? []
      if (fresh.length === 0) return
      pending.push(...fresh)
      if (timer !== undefined) return // within the window: announced at its end
      flush()
      timer = p.timers.setTimeout(() => {
        timer = undefined
        flush()
      }, p.announceDelayMs)
    },
    admit(kind, payload, from) {
      if (from === undefined) return payload
      if (kind !== 'update') {
        const placed = existing(payload)
        if (placed !== undefined) p.storing(() => book.relayed(from, placed))
        return placed
      }
      const judged = p.storing(() => book.memberUpdate(from, payload, p.held))
      if (judged === undefined) return undefined
      if (!judged.ok) return payload // not an update: the replica refuses it
      if (judged.strip.size === 0) return existing(payload)
      if (judged.forged.length > 0) {
        metrics.receivedDropped.inc({ reason: 'forged-author' })
        logOnce(from, "stripped structs written under another account's client id (logged once per member)", {
          clientIds: judged.forged.slice(0, 8),
        })
      }
      const rest = stripped(payload, judged.strip)
      const placed = rest === undefined ? undefined : existing(rest)
      return placed === undefined || (judged.kept === 0 && !deletes(placed)) ? undefined : placed
    },
    speaksFor: (from, clientId) => from !== undefined && book.speaksFor(from, clientId),
    members: (listed) => book.members(listed),
    health(from, payload, viewer = false) {
      if (from === undefined) return
      let authors: readonly number[] | undefined
      try {
        authors = decodeHealth(payload).authors
      } catch {
        return
      }
      if (authors === undefined) return
      const named = authors
      const foreign = p.storing(() => book.announced(from, named, viewer)) ?? 0
      if (foreign === 0) return
      metrics.receivedDropped.inc({ reason: 'author-claim-refused' }, foreign)
      logOnce(from, "refused an announcement naming another account's client ids (logged once per member)", {
        refused: foreign,
      })
    },
    ownIds: () => book.ownIds(Number.POSITIVE_INFINITY),
    authors: () => book.entries(),
    dispose() {
      if (timer !== undefined) p.timers.clearTimeout(timer)
      timer = undefined
    },
  }
}
