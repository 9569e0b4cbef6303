/**
 * An envelope a local page sent (already checked by its session). A change is applied to the
 * replica and kept in the outbox before it is acknowledged ("saved by your sidecar"); from then on
 * the sidecar owns its delivery. A page's sync request is answered from the replica; presence is
 * bounded in size and coalesced (presence.ts); health is carried as it is. An id the sidecar already holds is acknowledged again for its
 * sender and refused to anyone else.
 * @see docs/sidecar.md §4.3, §4.5
 */
import type { DocumentPresence } from '../presence/document-presence.ts'
import { decodeHealth, encodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import type { Session } from '../browser/session.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { DocReplica } from '../replica/replica.ts'
import type { SendOwner, SendQueue } from '../send/queue.ts'
import { DOC_KINDS } from './doc-kinds.ts'
import type { KeptChanges } from './kept-changes.ts'
import type { Pages } from './pages.ts'
import type { ChangeStore } from './ports.ts'
import type { Presence } from './presence.ts'
import type { Role } from '../roles/roles.ts'

// While Signal is away, a backlog longer than this is merged into one update (it stays short).
const MERGE_AT = 16

/** Where a page's change goes on once it is durable: the queue, the kept changes, the pages' notes. */
export interface BrowserSends {
  readonly queue: Pick<SendQueue, 'enqueue' | 'rewrite' | 'waiting' | 'queuedBytes'>
  readonly kept: Pick<KeptChanges, 'merge' | 'ownerFor'>
  /** Whether Signal takes sends now: while it does not, a long backlog is merged. */
  reachable(): boolean
  /** Records an id about to go to the group, so Signal's copy of it is dropped. */
  markSent(senderId: string, messageId: string): void
  /** Tells the pages how far the document's changes have got. */
  changed(): void
}

/** A page's presence: noted by the mirror, coalesced for Signal (presence.ts). */
export interface BrowserPresence {
  /** Largest presence frame carried; larger ones are refused (`SIDECAR_PRESENCE_TOO_LARGE`). */
  readonly maxBytes: number
  readonly seen: DocumentPresence['seen']
  readonly offer: Presence['offer']
}

/** This account as the writer of its pages' changes. */
export interface BrowserWriter {
  /** This account's role: a viewer's pages may not change the document (`SIDECAR_READ_ONLY`). */
  role(): Role
  /** How far the replica holds each client `update` writes under, read before it is applied. */
  holding(update: Uint8Array): (clientId: number) => number
  /** Content this account's page wrote, applied: its client ids are this account's (author-gate.ts). */
  authored(update: Uint8Array, heldBefore: (clientId: number) => number): void
  /** A page's change refused because this account views or comments (demotion.ts keeps it while a demotion settles). */
  refusedByRole(update: Uint8Array): void
  /** A page's change as this role may make it (roles/doc-roles.ts `mine`): a commenter's review entries only. */
  mine(update: Uint8Array): Uint8Array | undefined
}

export interface BrowserInboxParts {
  readonly replica: Pick<DocReplica, 'apply' | 'diff' | 'lacksFrom' | 'stateVector'>
  readonly store: Pick<ChangeStore, 'storing' | 'senderOf' | 'accept'>
  readonly pages: Pick<Pages, 'toOthers'>
  readonly sends: BrowserSends
  readonly presence: BrowserPresence
  readonly writer: BrowserWriter
  /** One of the sidecar's own envelopes for this document (not sent to the group). */
  readonly own: (kind: Kind, payload: Uint8Array) => Envelope
  readonly ops: { readonly metrics: Metrics; readonly logger: Logger }
}

/** Takes an envelope a local page sent. */
export type BrowserInbox = (session: Session, env: Envelope, frame: Uint8Array) => void

/** True for a health payload that announces capabilities or authors, or asks members to (§3.12). */
function announces(payload: Uint8Array): boolean {
  try {
    const h = decodeHealth(payload)
    return h.capabilities !== undefined || h.hello === true || h.authors !== undefined
  } catch {
    return false
  }
}

const refusal = (messageId: string) => ({ messageId, strike: false })

export function createBrowserInbox(p: BrowserInboxParts): BrowserInbox {
  const { replica, store, pages, sends, writer } = p
  const { queue, kept } = sends
  const { metrics } = p.ops

  /** A page's change, durable in the replica and the outbox before it is acknowledged and queued. */
  function change(session: Session, sent: Envelope, sentFrame: Uint8Array): void {
    // Never applied, kept or sent: the page drops it from its outbox (no retry) and shows read-only.
    if (writer.role() === 'viewer') {
      writer.refusedByRole(sent.payload)
      return session.refuse(
        'SIDECAR_READ_ONLY',
        'you can view this document, not edit it (an editor can make you an editor)',
        refusal(sent.messageId),
      )
    }
    // A commenter's page may write review entries only; what it may not is refused whole.
    const payload = writer.role() === 'commenter' ? writer.mine(sent.payload) : sent.payload
    if (payload === undefined) {
      writer.refusedByRole(sent.payload)
      return session.refuse(
        'SIDECAR_READ_ONLY',
        'you can comment on this document and suggest changes, not edit it (an editor can make you an editor)',
        refusal(sent.messageId),
      )
    }
    const env = payload === sent.payload ? sent : { ...sent, payload }
    const frame = payload === sent.payload ? sentFrame : encodeEnvelope(env)
    const heldBefore = writer.holding(env.payload)
    const applied = store.storing(() => replica.apply(env.payload, { via: 'page' }))
    if (applied === undefined) return
    if (!applied)
      return session.refuse(
        'SIDECAR_BAD_PAYLOAD',
        `the ${env.kind} payload is not a Yjs update`,
        refusal(env.messageId),
      )
    writer.authored(env.payload, heldBefore)
    // Durable in the replica and the outbox: the browser may forget it now.
    if (!store.accept(env.senderId, env.messageId, frame)) return
    session.ack(env.messageId)
    sends.markSent(env.senderId, env.messageId)
    pages.toOthers(session, frame)
    const item = { frame, messageId: env.messageId, owner: kept.ownerFor(session), source: session, first: true }
    let queued = queue.enqueue(item)
    if (!queued || (!sends.reachable() && queue.waiting > MERGE_AT)) {
      queue.rewrite(kept.merge)
      if (!queued) queued = queue.enqueue({ ...item, owner: kept.ownerFor(session) })
    }
    // Still no room: the change is kept in the outbox and goes out with the next start.
    if (!queued)
      p.ops.logger.warn(
        { queuedBytes: queue.queuedBytes },
        'send queue full even merged; a change waits in the outbox for the next start',
      )
    sends.changed()
  }

  /** Presence: bounded, shown to the other pages at once, and the latest per page coalesced for Signal. */
  function presence(session: Session, env: Envelope, frame: Uint8Array): void {
    if (frame.length > p.presence.maxBytes)
      return session.refuse(
        'SIDECAR_PRESENCE_TOO_LARGE',
        `a presence frame is at most ${p.presence.maxBytes} bytes`,
        refusal(env.messageId),
      )
    p.presence.seen(env.payload, session)
    pages.toOthers(session, frame)
    p.presence.offer(session, env.senderId, env.messageId, frame)
  }

  /** Health: carried as it is, acknowledged when sent, never kept. */
  function carryEphemeral(session: Session, env: Envelope, frame: Uint8Array): void {
    sends.markSent(env.senderId, env.messageId)
    pages.toOthers(session, frame)
    const owner: SendOwner = {
      ack: (id) => session.ack(id),
      reject: (id, code, message) => session.refuse(code, message, refusal(id)),
    }
    if (!queue.enqueue({ frame, messageId: env.messageId, owner, source: session }))
      session.refuse(
        'SIDECAR_QUEUE_FULL',
        'the send queue of this document is full; retry later',
        refusal(env.messageId),
      )
  }

  /**
   * A page's sync-request is answered from the replica at once, with what it lacks, and is not
   * carried to the group (the sidecar keeps the group in sync itself). When the page holds
   * something the replica lacks, the replica asks it back.
   */
  function answerLocally(session: Session, env: Envelope): void {
    let diff: Uint8Array
    let behind: boolean
    try {
      diff = replica.diff(env.payload)
      behind = replica.lacksFrom(env.payload)
    } catch {
      return session.refuse(
        'SIDECAR_BAD_PAYLOAD',
        'the sync-request payload is not a Yjs state vector',
        refusal(env.messageId),
      )
    }
    session.send(encodeEnvelope(p.own('sync-response', diff)))
    if (behind) session.send(encodeEnvelope(p.own('sync-request', replica.stateVector())))
  }

  return (session, env, frame) => {
    metrics.envelopesIn.inc({ kind: env.kind })
    // An id this sidecar already holds: its sender's replay is acknowledged again (never sent
    // twice); another sender's reuse is refused, so it cannot stand in for the first one's change.
    const known = store.senderOf(env.messageId)
    if (known === undefined) return
    if (known.known) {
      if (known.sender !== '' && known.sender !== env.senderId)
        return session.refuse(
          'SIDECAR_MESSAGE_ID_TAKEN',
          'this message id belongs to another sender of this document; use a fresh id',
          refusal(env.messageId),
        )
      metrics.replaysAcked.inc()
      return session.ack(env.messageId)
    }
    if (env.kind === 'sync-request') return answerLocally(session, env)
    // Members trust an announcement as the account's own: only the sidecar makes them.
    if (env.kind === 'health' && announces(env.payload))
      return session.refuse(
        'SIDECAR_BAD_PAYLOAD',
        'capability and author announcements are made by the sidecar, not by browsers',
        refusal(env.messageId),
      )
    if (env.kind === 'awareness') return presence(session, env, frame)
    if (!DOC_KINDS.has(env.kind)) return carryEphemeral(session, env, frame)
    change(session, env, frame)
  }
}
