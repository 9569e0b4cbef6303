/**
 * A document's side of authorship (authorship/author-book.ts): its pages' client ids bound to this
 * account and announced to the group, a member's update refused when it writes under another
 * account's client id (dropped, counted, logged once per member), content relayed in a sync
 * answer or snapshot marked "relayed by", and the members' announcements read.
 * @see docs/decisions/0021-authorship.md, docs/sidecar.md §4.12
 */
import { decodeHealth, MAX_ANNOUNCED_AUTHORS, type Kind } from '@e2e-col/protocol'
import type { Timers } from '@e2e-col/sync'
import type { AuthorBook, Authorship } from '../authorship/author-book.ts'
import { accountKeys } from '../authorship/author-book.ts'
import type { MemberId } from '../group/roster.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'

// Members whose refused updates were logged; beyond, the oldest may be logged again.
const MAX_LOGGED = 256

export interface AuthorGateParts {
  readonly docId: string
  readonly book: AuthorBook
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
  /** Content one of this sidecar's pages (or the sidecar itself) wrote: its new client ids are announced. */
  fromPage(update: Uint8Array): void
  /** Content from a member: false when it must be dropped (an update under another account's client id). */
  admit(kind: Kind, payload: Uint8Array, from: MemberId | undefined): boolean
  /** A member's health payload: the client ids it announces become its own (first binding stands). */
  health(from: MemberId | undefined, payload: Uint8Array): void
  /** This account's newest client ids, for an announcement. */
  ownIds(): number[]
  authors(): Authorship[]
  /** Stops the pending announcement's timer. */
  dispose(): void
}

export function createAuthorGate(p: AuthorGateParts): AuthorGate {
  const { book, metrics, logger } = p
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
    fromPage(update) {
      const fresh = p.storing(() => book.ownUpdate(update)) ?? []
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
      if (from === undefined) return true
      if (kind !== 'update') {
        p.storing(() => book.relayed(from, payload))
        return true
      }
      const verdict = p.storing(() => book.memberUpdate(from, payload))
      if (verdict === undefined) return false
      if (verdict.ok || verdict.clientId === undefined) return true // not an update: the replica refuses it
      metrics.receivedDropped.inc({ reason: 'forged-author' })
      logOnce(from, "dropped an update written under another account's client id (logged once per member)", {
        clientId: verdict.clientId,
      })
      return false
    },
    health(from, payload) {
      if (from === undefined) return
      let authors: readonly number[] | undefined
      try {
        authors = decodeHealth(payload).authors
      } catch {
        return
      }
      if (authors === undefined) return
      const named = authors
      const foreign = p.storing(() => book.announced(from, named)) ?? 0
      if (foreign === 0) return
      metrics.receivedDropped.inc({ reason: 'author-claim-refused' }, foreign)
      logOnce(from, "refused an announcement naming another account's client ids (logged once per member)", {
        refused: foreign,
      })
    },
    ownIds: () => book.ownIds(MAX_ANNOUNCED_AUTHORS),
    authors: () => book.entries(),
    dispose() {
      if (timer !== undefined) p.timers.clearTimeout(timer)
      timer = undefined
    },
  }
}
