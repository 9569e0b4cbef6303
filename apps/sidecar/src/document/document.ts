/**
 * One served document: its pages, replica, send queue, group sync and gap repair, and the two ways
 * in: an envelope from a local page (document/browser-inbox.ts) and one from the group
 * (document/group-inbox.ts). Everything that changes the document is durable in the replica
 * before it is forwarded, queued or delivered; a page's change is acknowledged once it is durable
 * in the replica and the outbox ("saved by your sidecar"), and from then on the sidecar owns its
 * delivery (delivery.ts tells the pages how far it got). What it needs from the rest of the
 * sidecar comes through a few ports (document/ports.ts); what others ask of it are the verbs of
 * {@link Document}.
 * @see docs/sidecar.md §4.3–§4.7, §8, docs/architecture.md "The sidecar's parts"
 */
import { CAPABILITY, encodeEnvelope, encodeHealth, type Envelope, type Kind } from '@e2e-col/protocol'
import * as Y from 'yjs'
import { createAuthorBook, type Authorship } from '../authorship/author-book.ts'
import { authorTagOfAccount } from '../authorship/author-tag.ts'
import { heldOrWaiting, newIn } from '../authorship/client-ids.ts'
import { createAuthorGate } from './author-gate.ts'
import { createBrowserInbox } from './browser-inbox.ts'
import { createGroupInbox, type GroupInbox, type GroupSide } from './group-inbox.ts'
import { createSenderStamper } from '../presence/sender-stamp.ts'
import { createDocumentRoles, type DocumentRoles, type RoleSide } from '../roles/doc-roles.ts'
import { createKeptChanges, type OutboxSide } from './kept-changes.ts'
import { createPages, type PageSide, type Pages } from './pages.ts'
import type { DocumentPorts } from './ports.ts'
import { createPresence } from './presence.ts'
import { createReplicaSync, createSyncBounds, type SyncBounds } from './replica-sync.ts'
import { createCapabilityExchange } from '../group/capability-exchange.ts'
import { createRoster, type MemberId, type Roster } from '../group/roster.ts'
import type { GroupRoles } from '../roles/roles.ts'
import { createDocumentPresence } from '../presence/document-presence.ts'
import type { DocReplica } from '../replica/replica.ts'
import { createDelivery } from '../send/delivery.ts'
import type { SendOwner, SendQueue } from '../send/queue.ts'
import { createDemotionWatch, type DemotionWatch } from './demotion.ts'
import { countReviewEntries } from '@e2e-col/review'
import { createEntryRate, type EntryRate } from '../review/entry-rate.ts'

export type { DocumentPorts } from './ports.ts'

export type { SyncStats } from './group-inbox.ts'

/** What the sidecar's history and review ask of the document's content (`doc.content`). */
export interface ContentSide {
  /**
   * A change the sidecar makes itself (a restore, a revert): durable in the replica, shown to the
   * pages and sent to the group like an edit. False when it is not a valid update, the store failed, or this account is a viewer.
   */
  edit(update: Uint8Array): boolean
  /** Calls `listener` after each change to the replica, from anywhere; returns the way to stop. */
  onChange(listener: () => void): () => void
  /** Who each client id of the document belongs to, or which member relayed it (decisions/0023). */
  authors(): Authorship[]
}

/**
 * What a document keeps across its stays in memory (decisions/0040), held by the collection while
 * it is out: what its members announced (so a reload asks nobody again), how fast each member may
 * still add review entries, when each member's next sync request is answered and what its claims
 * may cost (so taking it out and in again never refills anyone's bucket nor answers anyone sooner).
 */
export interface DocumentCarry {
  readonly roster: Roster
  readonly reviewRate: EntryRate
  /** When each member's next sync request is answered, and what its claims may cost (replica-sync.ts). */
  readonly sync: SyncBounds
}

/**
 * One served document: its ids, and a side per feature, each a narrow interface its feature owns.
 * It stays at a few members (`apps/sidecar/test/document-verbs.test.ts`): a new verb goes to its side.
 */
export interface Document {
  readonly docId: string
  readonly groupId: string
  /** What outlives this stay in memory. */
  readonly carry: DocumentCarry
  /** Its browser pages (document/pages.ts). */
  readonly pages: PageSide
  /** Its side of its Signal group (document/group-inbox.ts). */
  readonly group: GroupSide
  /** Its roles as the group lists them (roles/doc-roles.ts). */
  readonly roles: RoleSide
  /** Its sending side (document/kept-changes.ts). */
  readonly outbox: OutboxSide
  /** Its content, as the sidecar's own features change and read it. */
  readonly content: ContentSide
  /** Stops the queue and timers, and closes every socket with `code`. */
  close(code: number, reason: string): void
}

// Authorship bounds per document: bindings per account, and rows in all (authorship/author-book.ts).
const AUTHORS_PER_ACCOUNT = 512
const AUTHOR_ROWS = 8192
// A new client id of this account's pages is announced at once, queued beside the page's edit (it
// rides in the same Signal send); the ones that follow within this window go together at its end.
const ANNOUNCE_AUTHORS_MS = 1000
// A member's hellos are answered at most once per this (docs/sidecar.md §4.10).
const HELLO_GAP_MS = 60_000
// Presence: the largest frame carried, and the least time between two presence sends (§4.5).
const PRESENCE_MAX_BYTES = 1024
const presenceIntervalMs = (sendsPerSecond: number) => Math.max(2000, 2000 / sendsPerSecond)

/** A document's two presence parts, each fed what pages and members show. */
function presenceParts(
  ports: Pick<DocumentPorts, 'sent' | 'limits' | 'clock'>,
  docId: string,
  p: {
    pages: Pages
    queue: SendQueue
    frame: (payload: Uint8Array) => Uint8Array
    toGroup: (payload: Uint8Array) => void
  },
) {
  return {
    // What the pages and the group show now (greets a page that connects, removes a closed page's).
    mirror: createDocumentPresence({ pages: p.pages.sessions, frame: p.frame, toGroup: p.toGroup }),
    // What goes to Signal: the latest state per page, coalesced and paced behind edits.
    presence: createPresence({
      queue: p.queue,
      markSent: (senderId, messageId) => ports.sent.markSent(docId, senderId, messageId),
      intervalMs: presenceIntervalMs(ports.limits.sendsPerSecond),
      timers: ports.clock,
    }),
  }
}

/** The document's side of the capability rule; its announcements name this account's client ids. */
function capabilityExchange(
  ports: Pick<DocumentPorts, 'group' | 'clock' | 'metrics'>,
  toGroup: ToGroup,
  roster: Roster,
  authors: () => readonly number[],
) {
  return createCapabilityExchange({
    self: ports.group.self,
    roster,
    authors,
    features: ports.group.features,
    send: (payload) => {
      ports.metrics.announcements.inc({ direction: 'sent' })
      toGroup('health', payload)
    },
    answerDelayMs: { min: 200, max: 1500 },
    helloGapMs: HELLO_GAP_MS,
    now: ports.clock.now,
    random: ports.clock.rng,
  })
}

/** The document's authorship: its book over its rows, announcing through `toGroup`. */
function authorGate(
  ports: Pick<DocumentPorts, 'group' | 'authors' | 'store' | 'clock' | 'metrics' | 'logger'>,
  docId: string,
  toGroup: (kind: Kind, payload: Uint8Array) => void,
  replica: DocReplica,
) {
  const { metrics } = ports
  return createAuthorGate({
    docId,
    book: createAuthorBook({
      self: ports.group.self,
      rows: ports.authors,
      maxPerAccount: AUTHORS_PER_ACCOUNT,
      maxEntries: AUTHOR_ROWS,
      tagOfNumber: authorTagOfAccount,
    }),
    held: (clientId) => Y.getState(replica.doc.store, clientId),
    heldOrWaiting: () => heldOrWaiting(replica.doc),
    // Not a capability announcement: not counted as one (a sidecar announcing no capabilities still names its authors).
    announce: (clientIds) => {
      if (ports.group.announceAuthors) toGroup('health', encodeHealth({ authors: clientIds }))
    },
    announceDelayMs: ANNOUNCE_AUTHORS_MS,
    timers: ports.clock,
    storing: (fn) => ports.store.storing(fn),
    metrics,
    logger: ports.logger,
  })
}

/** What the document's pages are told of its changes, and of this account's role. */
function deliveryFor(
  ports: Pick<DocumentPorts, 'own' | 'reach' | 'clock' | 'store' | 'group'>,
  docId: string,
  pages: Pages,
  roles: Pick<DocumentRoles, 'self'>,
) {
  const { self } = ports.group
  return createDelivery({
    docId,
    sidecarId: ports.own.sidecarId,
    sessions: pages.sessions,
    reach: ports.reach,
    now: ports.clock.now,
    newMessageId: ports.clock.newMessageId,
    unsent: () => ports.store.unsent(),
    forget: (ids) => ports.store.delivered(ids),
    role: () => roles.self(),
    // The page writes under client ids made from it (decisions/0023); no number, no tag.
    ...(self.number && ports.group.derivedClientIds ? { author: authorTagOfAccount(self.number) } : {}),
  })
}

/** Puts one of the sidecar's own envelopes into the queue for the group; `refused` when Signal refuses it. */
export type ToGroup = (kind: Kind, payload: Uint8Array, refused?: () => void) => void

/** The document's send queue, and `toGroup`: the sidecar's own envelopes queued for the group. */
function groupSends(
  ports: Pick<DocumentPorts, 'outbound' | 'store' | 'metrics' | 'logger'>,
  docId: string,
  groupId: string,
  p: {
    own: (kind: Kind, payload: Uint8Array, sent: boolean) => Envelope
    roster: Pick<Roster, 'allRead'>
    unsent: () => void
  },
): { queue: SendQueue; toGroup: ToGroup } {
  const { outbound, store, metrics, logger } = ports
  const queue = outbound.open({
    docId,
    groupId,
    // The roster is read only when a send is packed.
    allRead: (bits) => p.roster.allRead(bits),
    beforeSend: (ids) => store.rememberSent(ids),
    onUnsent: (ids) => {
      store.dropUnsent(ids)
      p.unsent()
    },
  })
  function toGroup(kind: Kind, payload: Uint8Array, refused?: () => void): void {
    if (outbound.stopped()) return
    const env = p.own(kind, payload, true)
    metrics.replicaMessages.inc({ kind })
    const owner: SendOwner = { ack: () => {}, reject: () => refused?.() }
    if (!queue.enqueue({ frame: encodeEnvelope(env), messageId: env.messageId, owner }))
      logger.warn({ kind }, 'send queue full; dropped a sync message of the replica')
  }
  return { queue, toGroup }
}

/** The sidecar's own envelopes; `sent` when one goes to the group (Signal's copy is then dropped). */
const ownEnvelopes =
  (ports: Pick<DocumentPorts, 'own' | 'sent'>, docId: string) =>
  (kind: Kind, payload: Uint8Array, sent = false): Envelope => {
    const env = ports.own.make(docId, kind, payload)
    if (sent) ports.sent.markSent(docId, env.senderId, env.messageId)
    return env
  }

/** What a document tells the author's side of a demotion (document/demotion.ts); nothing without a rejoin port. */
interface DemotionHooks {
  roles(next: GroupRoles, askedAt: number): void
  /** `set`, the members also kept for a document served anew. */
  carrying(set: (members: readonly MemberId[]) => void): (members: readonly MemberId[]) => void
  /** The group inbox, an editor's answer also offered as the group's whole state. */
  listening(inbox: GroupInbox, isViewer: (from: MemberId | undefined) => boolean): GroupInbox
  refused(update: Uint8Array): void
}

function demotionHooks(
  ports: Pick<DocumentPorts, 'rejoin' | 'store' | 'clock' | 'logger'>,
  docId: string,
  p: {
    replica: DocReplica
    /** Asks the group for what `stateVector` lacks. */
    ask: (stateVector: Uint8Array) => void
    delivery: { changed(): void }
    ownIds: () => readonly number[]
  },
): DemotionHooks {
  const port = ports.rejoin
  const carried: { roles?: GroupRoles; members?: readonly MemberId[] } = {}
  const serveAnew = (state: Uint8Array | undefined) =>
    port?.rejoin(state, { roles: carried.roles, members: carried.members })
  const watch: DemotionWatch | undefined =
    port &&
    createDemotionWatch({
      docId,
      book: port.book,
      changer: () => port.changer(),
      replica: p.replica,
      store: ports.store,
      ownIds: p.ownIds,
      ask: p.ask,
      rejoin: serveAnew,
      restart: () => serveAnew(undefined),
      told: () => p.delivery.changed(),
      now: ports.clock.now,
      logger: ports.logger,
    })
  return {
    roles(next, askedAt) {
      carried.roles = next
      watch?.listed(next, askedAt)
    },
    carrying: (set) => (members) => void [(carried.members = members), set(members)],
    listening: (inbox, isViewer) => (frame, env, from, source) => {
      const refused = inbox(frame, env, from, source)
      if (env.kind === 'sync-response' && !isViewer(from)) watch?.answer(env.payload)
      return refused
    },
    refused: (update) => watch?.refused(update),
  }
}

/** The parts of one document, each built before the part that uses it. */
function documentParts(
  ports: DocumentPorts,
  docId: string,
  groupId: string,
  replica: DocReplica,
  left?: DocumentCarry,
) {
  const { store, metrics, logger } = ports
  const pages = createPages()
  const own = ownEnvelopes(ports, docId)
  const roles = createDocumentRoles({ docId, replica: replica.doc, metrics, logger })
  const delivery = deliveryFor(ports, docId, pages, roles)
  const roster = left?.roster ?? createRoster(ports.group.self)
  const { queue, toGroup } = groupSends(ports, docId, groupId, { own, roster, unsent: () => delivery.changed() })
  const authors = authorGate(ports, docId, toGroup, replica)
  const capabilities = capabilityExchange(ports, toGroup, roster, () =>
    ports.group.announceAuthors ? authors.ownIds() : [],
  )
  const syncBounds = left?.sync ?? createSyncBounds()
  const sync = createReplicaSync(replica, {
    bounds: syncBounds,
    limits: ports.limits,
    clock: ports.clock,
    toGroup,
    rank: (requestId, asker) => ports.group.answerRank(groupId, requestId, asker),
    attachments: () => (capabilities.features & CAPABILITY.attachments) !== 0 && roster.allRead(CAPABILITY.attachments),
  })
  const kept = createKeptChanges({
    docId,
    store,
    queue,
    delivery,
    ownSent: (kind, payload) => own(kind, payload, true),
    maxFrameBytes: ports.limits.maxFrameBytes,
    metrics,
    logger,
  })
  const { mirror, presence } = presenceParts(ports, docId, {
    pages,
    queue,
    frame: (payload) => encodeEnvelope(own('awareness', payload)),
    toGroup: (payload) => toGroup('awareness', payload),
  })
  const demotion = demotionHooks(ports, docId, {
    replica,
    ask: (stateVector) => toGroup('sync-request', stateVector, () => sync.gapRepair.refused()),
    delivery,
    ownIds: () => authors.ownIds(),
  })
  const markSent = (senderId: string, messageId: string) => ports.sent.markSent(docId, senderId, messageId)
  const fromBrowser = createBrowserInbox({
    replica,
    store,
    pages,
    sends: { queue, kept, reachable: () => ports.reach.state === 'reachable', markSent, changed: delivery.changed },
    presence: { maxBytes: PRESENCE_MAX_BYTES, seen: mirror.seen, offer: presence.offer },
    writer: {
      role: roles.self,
      mine: roles.mine,
      holding: (update) => authors.holding(update),
      authored: (update, heldBefore) => authors.fromPage(update, heldBefore),
      refusedByRole: demotion.refused,
    },
    own: (kind, payload) => own(kind, payload),
    ops: { metrics, logger },
  })
  const stamp = createSenderStamper(ports.shownName, (payload) => encodeEnvelope(own('awareness', payload)))
  // One member's flood of comments or suggestions is bounded per document (decision 0038).
  const rate = left?.reviewRate ?? createEntryRate()
  const reviewRate = (source: string, payload: Uint8Array, from: MemberId | undefined) =>
    rate.take(source, countReviewEntries(payload, (c) => authors.speaksFor(from, c)) ?? 0, ports.clock.now())
  const inboxParts = { replica, sync, capabilities, pages, store, mirror, stamp, roles, metrics, authors, reviewRate }
  const fromGroup = demotion.listening(createGroupInbox(inboxParts), roles.isViewer)
  const parts = {
    pages,
    own,
    roles,
    delivery,
    queue,
    toGroup,
    authors,
    capabilities,
    sync,
    kept,
    mirror,
    presence,
    roster,
    carry: { roster, reviewRate: rate, sync: syncBounds },
  }
  return { ...parts, demotion, fromBrowser, fromGroup }
}

type Parts = ReturnType<typeof documentParts>

function pageSide(p: Parts): PageSide {
  const { pages, delivery, mirror, presence } = p
  return {
    get count() {
      return pages.sessions.size
    },
    // A new browser connection is told at once how far this document's changes have got.
    attach(session) {
      pages.add(session)
      delivery.greet(session)
      mirror.greet(session)
    },
    detach(session) {
      if (!pages.sessions.has(session)) return
      pages.remove(session)
      presence.forget(session)
      mirror.leave(session)
    },
    receive: p.fromBrowser,
    close: (code, reason) => pages.close(code, reason),
  }
}

function groupSide(p: Parts): GroupSide {
  const { capabilities, authors, sync, demotion } = p
  return {
    receive: p.fromGroup,
    ask: () => sync.ask(),
    greet: () => capabilities.hello(),
    setMembers: demotion.carrying(
      (members) => void [capabilities.roster.setMembers(members), authors.members(members)],
    ),
    lost: (source) => sync.gapRepair.lost(source),
    withdraw: (feature) => capabilities.withdraw(feature),
    keepWithdrawn: (feature) => capabilities.keepWithdrawn(feature),
    restore: (feature) => capabilities.restore(feature),
    syncStats: () => sync.groupSync.stats(),
    roster: p.roster,
    busy: () => sync.gapRepair.busy(),
  }
}

function roleSide(p: Parts, replica: DocReplica, ports: Pick<DocumentPorts, 'clock'>): RoleSide {
  const { roles, delivery, pages, own, demotion } = p
  return {
    set(next, askedAt) {
      if (roles.set(next)) {
        delivery.changed()
        // Made an editor: what the pages typed while they viewed (refused then) is asked for again.
        if (next.self === 'editor') pages.toAll(encodeEnvelope(own('sync-request', replica.stateVector())))
      }
      demotion.roles(next, askedAt ?? ports.clock.now())
    },
    self: roles.self,
    answerers: roles.editors,
    refusesContent: (from) => roles.refuses(from, 'attachment'),
  }
}

function outboxSide(p: Parts, ports: Pick<DocumentPorts, 'outbound'>): OutboxSide {
  const { queue, kept, sync, delivery } = p
  return {
    get queuedBytes() {
      return queue.queuedBytes
    },
    resumeKept: () => kept.resume(),
    reachChanged(state) {
      if (queue.waiting > 1) queue.rewrite(kept.merge)
      if (state === 'reachable' && !ports.outbound.stopped()) sync.ask()
      delivery.changed()
    },
    drain: (timeoutMs) => queue.drain(timeoutMs),
  }
}

function contentSide(p: Parts, replica: DocReplica, store: DocumentPorts['store']): ContentSide {
  const { roles, authors, pages, own } = p
  return {
    edit(change) {
      // A viewer changes nothing, not even through its own sidecar's history; a commenter only review entries.
      const mine = roles.mine(change)
      if (mine === undefined) return false
      // Only what the edit wrote: a copy of the replica passes on the structs Yjs keeps waiting
      // (a member may have relayed them under this account's tag), and they would go out as ours.
      const update = newIn(mine, heldOrWaiting(replica.doc))
      const heldBefore = authors.holding(update)
      if (store.storing(() => replica.apply(update, { via: 'sidecar' })) !== true) return false
      authors.fromPage(update, heldBefore)
      pages.toAll(encodeEnvelope(own('update', update)))
      p.toGroup('update', update)
      return true
    },
    onChange(listener) {
      const onUpdate = (): void => listener()
      replica.doc.on('update', onUpdate)
      return () => replica.doc.off('update', onUpdate)
    },
    authors: () => authors.authors(),
  }
}

/** One served document over its loaded replica; `carry`: what its last stay in memory left. */
export function createDocument(
  ports: DocumentPorts,
  docId: string,
  groupId: string,
  replica: DocReplica,
  carry?: DocumentCarry,
): Document {
  const p = documentParts(ports, docId, groupId, replica, carry)
  return {
    docId,
    groupId,
    carry: p.carry,
    pages: pageSide(p),
    group: groupSide(p),
    roles: roleSide(p, replica, ports),
    outbox: outboxSide(p, ports),
    content: contentSide(p, replica, ports.store),
    close(code, reason) {
      p.queue.close()
      p.presence.dispose()
      p.pages.close(code, reason)
      p.sync.dispose()
      p.capabilities.dispose()
      p.authors.dispose()
      p.mirror.dispose()
    },
  }
}
