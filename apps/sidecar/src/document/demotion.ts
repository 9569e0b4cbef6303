/**
 * The author's side of a demotion (decisions/0032). Every other sidecar judges a member's content
 * by the role listed when it arrives, so what this account wrote and the group had not taken when
 * it was made a viewer, or a commenter (whose updates pass only when they write review entries
 * alone), is dropped everywhere. When this sidecar learns it is no longer an editor:
 * - the page edits it saved and has not sent, and that its new role may not send, are taken out of
 *   the send queue and the outbox (never sent: they would be dropped) and kept, as text, in the
 *   not-shared book, durable first; a commenter's review entries stay in the outbox and go out;
 * - the demotion is recorded with who made it: the sender of the last group update received since
 *   the listing before, or, when none was, of the first one received after, when that sender is an
 *   editor in the listing (only an admin may change an admin flag or the description's tag);
 * - it asks the group for its whole state (a sync request from nothing: editors answer it);
 * - from the first whole answer that holds everything of the others this replica holds, what of
 *   this account's own the group lacks is the exact list of edits not shared (`unsent`, or
 *   `not-taken`: sent, yet dropped), and the replica is rebuilt from that answer alone, so it
 *   shows nothing nobody else has. The rebuild is the collection's (`rejoin`).
 * @see docs/documents.md "Roles"
 */
import { decodeEnvelope } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { DOC_KINDS } from './doc-kinds.ts'
import type { ChangeStore } from './ports.ts'
import { checkReviewOnlyUpdate } from '@e2e-col/review'
import type { GroupRoles, Role } from '../roles/roles.ts'
import type { Logger } from '../ops/logger.ts'
import type { DocReplica } from '../replica/replica.ts'
import type { DemotedTo, Demotion, NotSharedBook, NotSharedEdit } from '../stranded/not-shared-book.ts'
import type { Changer } from '../stranded/rejoin-port.ts'
import { inRanges, rangesOf, textIn } from '../stranded/stranded-text.ts'

// While a rejoin waits for a whole answer, the group is asked again at most this often (at a listing).
const ASK_AGAIN_MS = 30_000

export interface DemotionParts {
  readonly docId: string
  readonly book: NotSharedBook
  readonly replica: Pick<DocReplica, 'doc'>
  readonly store: Pick<ChangeStore, 'kept' | 'delivered'>
  /** The last group update received for the document's group that named its sender. */
  readonly changer: () => Changer | undefined
  /** This account's client ids in the document (authorship/author-gate.ts). */
  readonly ownIds: () => readonly number[]
  /** Sends a sync request with this state vector to the group. */
  readonly ask: (stateVector: Uint8Array) => void
  /** Rebuilds the replica from `state` alone and serves it anew (its pages reconnect). */
  readonly rejoin: (state: Uint8Array) => void
  /** Serves the document anew from its replica as it is: its send queue closes, so nothing it holds goes out. */
  readonly restart: () => void
  /** The pages are told again (their role note, and what was not shared). */
  readonly told: () => void
  readonly now: () => number
  readonly logger: Logger
}

export interface DemotionWatch {
  /** The group's roles as a listing asked for at `askedAt` gave them (every listing, the first included). */
  listed(roles: GroupRoles, askedAt: number): void
  /** A sync answer from an editor: taken as the group's state when it is whole. */
  answer(payload: Uint8Array): void
  /** A page's change refused as a viewer's: kept as not shared while a demotion is settled (its page is rebuilt). */
  refused(update: Uint8Array): void
}

/** True when an unsent edit of `edits` was withheld with the clock at `client`, `clock`. */
const withheldAt = (edits: readonly NotSharedEdit[], client: number, clock: number): boolean =>
  edits.some((e) => e.reason === 'unsent' && e.ranges !== undefined && inRanges(e.ranges, client, clock))

const RANK: Record<Role, number> = { viewer: 0, commenter: 1, editor: 2 }

/**
 * True when `role` may still send this kept page change: an editor anything, a commenter review
 * entries alone with no deletion (the others cut a commenter's delete set), a viewer nothing.
 * Checked against an empty document: the entry is already in this replica, not in the others'.
 */
function sendable(role: Role, payload: Uint8Array): boolean {
  if (role === 'editor') return true
  if (role === 'viewer') return false
  const r = checkReviewOnlyUpdate(new Y.Doc(), payload)
  return r.ok && r.cut.ranges === 0
}

/** The payload of a page's content envelope, or undefined for anything else. */
function contentOf(frame: Uint8Array): Uint8Array | undefined {
  try {
    const env = decodeEnvelope(frame, { maxPayloadBytes: frame.byteLength })
    return DOC_KINDS.has(env.kind) ? env.payload : undefined
  } catch {
    return undefined
  }
}

/**
 * The group's state from an answer when it is whole (nothing pending) and holds every other
 * client's content this replica holds; undefined otherwise.
 */
function wholeState(payload: Uint8Array, replica: Y.Doc, own: ReadonlySet<number>): Y.Doc | undefined {
  const group = new Y.Doc()
  try {
    Y.applyUpdate(group, payload)
  } catch {
    return undefined
  }
  if (group.store.pendingStructs !== null || group.store.pendingDs !== null) return undefined
  const theirs = Y.decodeStateVector(Y.encodeStateVector(group))
  for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVector(replica)))
    if (!own.has(client) && (theirs.get(client) ?? 0) < clock) return undefined
  return group
}

/**
 * True when `replica` has deleted something `group` still shows: a deletion this account made that
 * the group did not take (a delete-only edit carries no struct, so the state vectors cannot tell).
 * Both delete sets are sorted, merged ranges per client: one pass over each.
 */
export function deletesBeyond(replica: Y.Doc, group: Y.Doc): boolean {
  const theirs = Y.createDeleteSetFromStructStore(group.store).clients
  for (const [client, ranges] of Y.createDeleteSetFromStructStore(replica.store).clients) {
    const covers = theirs.get(client) ?? []
    let i = 0
    for (const r of ranges) {
      const end = r.clock + r.len
      let from = r.clock
      while (from < end) {
        while (i < covers.length && covers[i]!.clock + covers[i]!.len <= from) i += 1
        const c = covers[i]
        if (c === undefined || c.clock > from) return true
        from = c.clock + c.len
      }
    }
  }
  return false
}

export function createDemotionWatch(p: DemotionParts): DemotionWatch {
  // The role the listing before gave, kept across restarts: a demotion made while down is one too.
  let last: Role | undefined = p.book.lastRole(p.docId)
  // When the listing before this one was asked for: a group update received since then made the change.
  let listedAt = -Infinity
  // The demotion being settled: when it was learned, and when the group was last asked.
  let pending: { at: number; askedAt: number } | undefined
  const resumedAt = p.book.rejoinPending(p.docId)
  if (resumedAt !== undefined) pending = { at: resumedAt, askedAt: -Infinity }
  const ofDemotion = (at: number): NotSharedEdit[] => p.book.list(p.docId).filter((e) => e.at === at)

  /** The number of the editor whose group update, received since `since`, made the change. */
  function changedBy(roles: GroupRoles, since: number): string | undefined {
    const c = p.changer()
    if (c === undefined || c.at < since) return undefined
    return roles.of({ number: c.number }) === 'editor' ? c.number : undefined
  }

  /** Records the demotion learned at `at` (to `role`), naming who made it when a group update tells. */
  function record(at: number, role: DemotedTo, roles: GroupRoles, since: number): void {
    const by = changedBy(roles, since)
    p.book.putDemotion(p.docId, { at, role, ...(by === undefined ? {} : { by }) })
  }

  /** The newest demotion, not yet named, is named by the first editor's group update received after it. */
  function nameLate(roles: GroupRoles): void {
    const newest: Demotion | undefined = p.book.demotions(p.docId).at(-1)
    if (newest === undefined || newest.by !== undefined || newest.role !== roles.self) return
    const by = changedBy(roles, newest.at)
    if (by === undefined) return
    p.book.putDemotion(p.docId, { ...newest, by })
    p.told()
  }

  /** Takes the unsent page edits `role` may not send out of the outbox, kept as text first; how many there were. */
  function withhold(at: number, role: Role): number {
    const rows = p.store.kept().flatMap((r) => {
      const payload = contentOf(r.frame)
      return payload === undefined || !sendable(role, payload) ? [{ ...r, payload }] : []
    })
    if (rows.length === 0) return 0
    const ranges = rows.flatMap((r) => (r.payload === undefined ? [] : rangesOf(r.payload)))
    // Read in the replica, in document order: what the person sees they typed.
    const edits = textIn(p.replica.doc, (client, clock) => inRanges(ranges, client, clock)).map((r): NotSharedEdit => ({
      reason: 'unsent',
      text: r.text,
      at,
      ranges,
    }))
    p.book.put(p.docId, at, [...ofDemotion(at), ...edits])
    p.book.setRejoinPending(p.docId, at)
    p.store.delivered(rows.map((r) => r.messageId))
    p.logger.warn(
      { docId: p.docId, edits: rows.length, role },
      `made a ${role} before these edits were sent: kept as not shared, never sent`,
    )
    return rows.length
  }

  /**
   * The group's whole state is known: what of this account's own it lacks is the list of edits not
   * shared (an edit withheld unsent stays `unsent`; the rest was sent and dropped), and the
   * replica is rebuilt from the group's state.
   */
  function settle(at: number, own: ReadonlySet<number>, group: Y.Doc): void {
    const missing = Y.encodeStateAsUpdate(p.replica.doc, Y.encodeStateVector(group))
    const before = ofDemotion(at)
    const theirs = Y.decodeStateVector(Y.encodeStateVector(group))
    const runs = textIn(p.replica.doc, (client, clock) => own.has(client) && clock >= (theirs.get(client) ?? 0))
    const edits = runs.map((r): NotSharedEdit => ({
      reason: withheldAt(before, r.client, r.clock) ? 'unsent' : 'not-taken',
      text: r.text,
      at,
    }))
    p.book.put(p.docId, at, [...before.filter((e) => e.reason === 'refused'), ...edits])
    pending = undefined
    p.book.setRejoinPending(p.docId, undefined)
    let ownStructs = false
    try {
      ownStructs = Y.decodeUpdate(missing).structs.some((s) => own.has(s.id.client))
    } catch {
      ownStructs = true
    }
    const lacks = ownStructs || before.some((e) => e.reason === 'unsent') || deletesBeyond(p.replica.doc, group)
    p.logger.info(
      { docId: p.docId, notShared: edits.length, rebuilt: lacks },
      'settled a demotion: what the group lacks is kept as not shared',
    )
    if (lacks) p.rejoin(Y.encodeStateAsUpdate(group))
    p.told()
  }

  return {
    listed(roles, askedAt) {
      const self = roles.self
      const before = last
      const since = listedAt
      last = self
      listedAt = askedAt
      p.book.noteRole(p.docId, self)
      if (self === 'editor') return
      const at = pending?.at ?? p.now()
      const demoted = before !== undefined && RANK[self] < RANK[before]
      const withheld = withhold(at, self)
      if (demoted || (withheld > 0 && pending === undefined)) record(at, self, roles, since)
      else nameLate(roles)
      if (withheld > 0) {
        // A send may hold one of them already: the document is served anew, its queue closed.
        p.told()
        return p.restart()
      }
      if (pending === undefined && demoted) {
        p.book.setRejoinPending(p.docId, at)
        pending = { at, askedAt: -Infinity }
      }
      if (pending !== undefined && p.now() - pending.askedAt >= ASK_AGAIN_MS) {
        pending.askedAt = p.now()
        p.ask(Y.encodeStateVector(new Y.Doc()))
      }
    },
    answer(payload) {
      if (pending === undefined || last === undefined || last === 'editor') return
      const own = new Set(p.ownIds())
      const group = wholeState(payload, p.replica.doc, own)
      if (group !== undefined) settle(pending.at, own, group)
    },
    refused(update) {
      if (pending === undefined) return
      const { at } = pending
      // Read where it would have gone: in a copy of the replica with the refused change applied.
      const copy = new Y.Doc()
      try {
        Y.applyUpdate(copy, Y.encodeStateAsUpdate(p.replica.doc))
        Y.applyUpdate(copy, update)
      } catch {
        return
      }
      const ranges = rangesOf(update)
      const edits = textIn(copy, (client, clock) => inRanges(ranges, client, clock)).map((r): NotSharedEdit => ({
        reason: 'refused',
        text: r.text,
        at,
      }))
      if (edits.length === 0) return
      p.book.put(p.docId, at, [...ofDemotion(at), ...edits])
      p.told()
    },
  }
}
