/**
 * Phase 4, documents: the documents served (the fixed ones, then those the library stored), the
 * Signal reachability they share, the chat bindings, and the library. Each document's capability
 * roster takes its group's members from every listing the membership owner takes.
 */
import { join } from 'node:path'
import { createDedupWindow, CLOSE_CODES, type DedupWindow } from '@e2e-col/protocol'
import type { MemberId } from '../group/roster.ts'
import type { SignalBackend } from '@e2e-col/signal-cli'
import type { MakeSession } from '../browser/sessions.ts'
import { createChatRelay, type ChatRelay } from '../chat/chat-relay.ts'
import { createDocuments, type Document, type Documents } from '../documents.ts'
import { keptFile } from '../durable-file.ts'
import type { GroupMembership, Listed } from '../group/membership.ts'
import { membersOf, sourceKey } from '../group/members.ts'
import { rolesIn } from '../roles/roles.ts'
import { createSelfLabels, type SelfLabels } from '../labels/self-label.ts'
import { createHistories, type Histories } from '../history/histories.ts'
import { createContacts, type Contacts } from '../people/contacts.ts'
import { createDocumentLibrary, type DocumentLibrary, type LibraryBackend } from '../library/library.ts'
import { answerRank } from '../replica/answer-rule.ts'
import { OWN_ACCEPTANCES_FILE, openOwnAcceptances, type OwnAcceptances } from '../review/own-acceptances.ts'
import { createReachability, type Reachability } from '../send/reachability.ts'
import type { DaemonFacts } from '../startup.ts'
import type { Lifecycle } from './lifecycle.ts'
import type { Basics, Phase } from './phase.ts'
import type { Stored } from './store.ts'

export interface Served {
  readonly docs: Documents
  readonly reach: Reachability
  readonly chats: ChatRelay
  /** Every served document's history (versions, restore, revert). */
  readonly histories: Histories
  /** Undefined with a backend that administers no groups (documents are then fixed only). */
  readonly library: DocumentLibrary | undefined
  /** What this sidecar sent, so its copies from Signal are dropped (the receive path reads it). */
  readonly ownSends: DedupWindow
  /** Envelopes in every served document's outbox, those made at run time included. */
  unsentEnvelopes(): number
  /** This sidecar's Signal account. */
  readonly self: MemberId
  /** The acceptances this sidecar wrote (review/own-acceptances.ts), settled against concurrent decisions. */
  readonly acceptances: OwnAcceptances
}

export interface DocumentsInput extends Stored {
  readonly facts: DaemonFacts
  readonly life: Lifecycle
  readonly membership: GroupMembership
  readonly makeSession: MakeSession
}

function hasDocumentMethods(backend: SignalBackend): backend is LibraryBackend {
  const b = backend as Partial<LibraryBackend>
  return (
    typeof b.createGroupWith === 'function' &&
    typeof b.updateGroup === 'function' &&
    typeof b.leaveGroup === 'function' &&
    typeof b.listContacts === 'function' &&
    typeof b.acceptGroupRequest === 'function'
  )
}

function reachability(b: Basics): Reachability {
  const { config, clock, metrics } = b
  const reach = createReachability({
    attempts: config.send.attempts,
    probeBaseMs: config.send.retryBaseMs,
    probeMaxMs: config.send.offlineProbeMaxMs,
    now: clock.now,
    sleep: clock.sleep,
    rng: clock.rng,
    logger: b.logger,
  })
  reach.onChange((state) => {
    for (const s of ['reachable', 'unreachable', 'daemon-down'])
      metrics.signalState.set({ state: s }, s === state ? 1 : 0)
  })
  metrics.signalState.set({ state: 'reachable' }, 1)
  return reach
}

function chatRelay(b: Basics, docs: Documents, makeSession: MakeSession): ChatRelay {
  const { config } = b
  // Chat bindings (§4.9): relayed between browsers and the local loop, never replicated or queued.
  return createChatRelay({
    bindings: config.chats.bindings,
    isDocumentGroup: (groupId) => docs.servedIn(groupId) !== undefined,
    operators: new Set(config.chats.operators),
    loopAccount: config.chats.loopAccount,
    browserOperators: config.chats.browserOperators,
    maxConnectionsPerChat: config.browser.maxConnectionsPerDoc,
    maxBodyBytes: config.maxBodyBytes,
    sidecarId: b.sidecarId,
    newMessageId: b.clock.newMessageId,
    makeSession,
    postBody: async (groupId, body) => void (await b.backend.sendGroupMessage(groupId, body)),
    logger: b.logger,
  })
}

/** Who is who, from the daemon's contacts; undefined with a backend that administers no groups. */
function contactsOf(b: Basics, i: DocumentsInput): Contacts | undefined {
  const { backend } = b
  if (!hasDocumentMethods(backend)) return undefined
  return createContacts({
    listContacts: () => backend.listContacts(),
    listIdentities: () => backend.listIdentities(),
    now: b.clock.now,
    you: i.facts.account ?? '',
  })
}

function documentLibrary(
  b: Basics,
  i: DocumentsInput,
  p: { docs: Documents; chats: ChatRelay; contacts: Contacts | undefined },
): DocumentLibrary | undefined {
  // Documents made at run time need a backend that administers groups (the HTTP one does).
  if (!hasDocumentMethods(b.backend) || p.contacts === undefined) return undefined
  const { docs, chats } = p
  return createDocumentLibrary({
    backend: b.backend,
    contacts: p.contacts,
    membership: i.membership,
    you: i.facts.account ?? '',
    documents: docs,
    store: i.store,
    fixed: b.config.documents,
    reserved: (groupId) => chats.isChatGroup(groupId),
    linkedDevice: b.config.setup === 'linked-device',
    clock: b.clock,
    storing: i.life.storing,
    stopped: i.life.stopped,
    closeCode: CLOSE_CODES.POLICY_VIOLATION,
    logger: b.logger,
  })
}

/** Labels this account with its role in each document group (undefined: the backend cannot). */
function selfLabels(b: Basics, self: MemberId): SelfLabels | undefined {
  const { backend } = b
  const labelSelf = (backend as Partial<Pick<LibraryBackend, 'labelSelf'>>).labelSelf
  if (labelSelf === undefined) return undefined
  return createSelfLabels({ labelSelf: (g, l) => labelSelf.call(backend, g, l), self, logger: b.logger })
}

export function serveDocuments(b: Basics, i: DocumentsInput): Phase<Served> {
  const { config, clock, metrics, logger } = b
  const { store, life, membership } = i
  const reach = reachability(b)
  const ownSends = createDedupWindow(config.dedup)
  const histories = createHistories({
    table: store.history,
    policy: config.history,
    timers: clock,
    self: () => membership.self.number ?? membership.self.uuid ?? '',
    storing: life.storing,
    left: (docId) => life.storing(() => store.documents.get(docId)?.state === 'removed') === true,
    logger,
  })
  const acceptances = openOwnAcceptances(
    keptFile(join(config.replica.dataDir, OWN_ACCEPTANCES_FILE), 'the acceptances this sidecar wrote'),
  )
  // Made before the documents: their presence names people; the library reads the same contacts.
  const contacts = contactsOf(b, i)
  const docs = createDocuments({
    histories,
    ...(contacts === undefined ? {} : { shownName: contacts.shownNow }),
    config,
    backend: b.backend,
    reach,
    clock,
    store,
    authors: store.authors,
    history: store.history,
    sidecarId: b.sidecarId,
    metrics,
    logger,
    storing: life.storing,
    fatal: life.fatal,
    self: membership.self,
    markSent: (docId, senderId, messageId) => ownSends.seen(docId, senderId, messageId, clock.now()),
    // Only editors answer: a viewer's answer is content every member drops.
    answerRank: (groupId, requestId, asker) =>
      answerRank(
        requestId,
        membership.selfKey(),
        docs.byGroup(groupId)?.roles.answerers() ?? membership.members(groupId).map((m) => sourceKey(m.uuid, m.number)),
        asker,
      ),
    stopped: life.stopped,
  })
  for (const { docId, groupId } of config.documents) docs.serve(docId, groupId)
  const unsentEnvelopes = (): number =>
    life.storing(() => [...docs.ids()].reduce((n, docId) => n + store.outbox.count(docId), 0)) ?? 0
  metrics.unsentSource.read = unsentEnvelopes
  const chats = chatRelay(b, docs, i.makeSession)
  const library = documentLibrary(b, i, { docs, chats, contacts })
  // At start a store failure fails the start.
  library?.serveStored()
  const labels = selfLabels(b, membership.self)
  // Every served document's roster and roles, those made at run time included, from every listing taken.
  const toRoster = (doc: Document, listed: Listed): void => {
    const entry = listed.listing.find((g) => g.id === doc.groupId)
    if (listed.whole || entry !== undefined) docs.setMembers(doc.groupId, membersOf(listed.listing, doc.groupId))
    if (entry === undefined) return
    doc.roles.set(rolesIn(entry, membership.self), listed.askedAt)
    labels?.seen(entry, doc.roles.self())
  }
  // The documents in memory now; one loaded later takes the latest listing as a start does.
  const toRosters = (listed: Listed): void => {
    for (const doc of docs.values()) toRoster(doc, listed)
    // A document out of memory still wears its role as its label (nothing else of it needs the listing).
    for (const entry of listed.listing) {
      const docId = docs.servedIn(entry.id)
      if (docId !== undefined && docs.loaded(docId) === undefined)
        labels?.seen(entry, rolesIn(entry, membership.self).self)
    }
  }
  docs.onLoad((doc) => toRoster(doc, { listing: membership.groups(), whole: true, askedAt: clock.now() }))
  const unsubscribe = membership.subscribe(toRosters)
  return {
    part: { docs, reach, chats, library, ownSends, unsentEnvelopes, histories, self: membership.self, acceptances },
    // What each history holds pending becomes a version before the store closes.
    close: () => {
      unsubscribe()
      histories.close()
    },
  }
}
