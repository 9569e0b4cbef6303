/**
 * Phase 5, receive: the events loop over the first stream, each group message checked against its
 * group's members (receive/member-check.ts), then read (receive/ingest.ts: dedup, reassembly,
 * attachments) and delivered to its document; chat groups go to the chat relay, group updates to
 * the library, Note to Self messages to the approval from the phone.
 */
import {
  MAX_ATTACHMENT_READ_BYTES,
  runEventsLoop,
  type BroadcastRecoveryRequiredError,
  type EventsLoop,
  type SignalEvent,
  type SignalNoteToSelf,
} from '@e2e-col/signal-cli'
import { CAPABILITY, CLOSE_CODES } from '@e2e-col/protocol'
import { receiveBodyBound } from '../config.ts'
import type { GroupMembership } from '../group/membership.ts'
import { createAttachmentFetcher } from '../receive/attachment-fetch.ts'
import { createIngest, SELF, type Ingest } from '../receive/ingest.ts'
import { createMissingAttachments, type MissingAttachments } from '../receive/missing-attachments.ts'
import { createMembership, sourceKey, type Membership } from '../receive/member-check.ts'
import { createRememberedIds, type RememberedIds } from '../receive/remembered-ids.ts'
import type { ReceivedIdTable } from '../replica/received-ids.ts'
import { retractionsFor } from '../retract/wiring.ts'
import type { Daemon } from './daemon.ts'
import type { Served } from './documents.ts'
import type { Basics, Phase } from './phase.ts'

// "Not found" answers in a row, from one member of one document, after which that document stops
// announcing it reads attachments; and how many (document, member) counts are kept.
const MISSING_BEFORE_WITHDRAW = 3
const MISSING_ENTRIES = 4096

export interface ReceiveInput {
  readonly daemon: Daemon
  readonly membership: GroupMembership
  readonly served: Served
  /** The store's delivered ids (replica/received-ids.ts). */
  readonly receivedIds: ReceivedIdTable
  /** What the person typed into Note to Self on another device (approval/: commands from the phone). */
  readonly noteToSelf?: (e: SignalNoteToSelf) => void
}

// First sightings are written at most this long after they were delivered, in one transaction.
const REMEMBER_FLUSH_MS = 200
const REMEMBER_MAX_WAITING = 512

function rememberedFor(b: Basics, table: ReceivedIdTable): RememberedIds {
  const { config, clock, logger } = b
  let warned = false
  return createRememberedIds({
    table,
    timers: clock,
    flushMs: REMEMBER_FLUSH_MS,
    maxWaiting: REMEMBER_MAX_WAITING,
    ttlMs: config.dedup.ttlMs,
    maxRows: config.dedup.maxEntries,
    onError: (error) => {
      if (warned) return
      warned = true
      logger.warn(
        { err: error },
        'could not store received message ids; copies arriving after a restart may be delivered again',
      )
    },
  })
}

function missingFor(b: Basics, served: Served): MissingAttachments {
  const { config, logger, clock } = b
  return createMissingAttachments({
    inARow: MISSING_BEFORE_WITHDRAW,
    restoreAfterMs: config.attachments.restoreAfterMs,
    maxEntries: MISSING_ENTRIES,
    timers: clock,
    withdraw: (docId) => {
      logger.warn(
        { docId, missing: MISSING_BEFORE_WITHDRAW },
        'attachments announced in this document are not found; not reading attachments in it for a while (members send text)',
      )
      served.docs.withdraw(docId, CAPABILITY.attachments)
    },
    restore: (docId) => served.docs.restore(docId, CAPABILITY.attachments),
  })
}

function ingestFor(b: Basics, i: ReceiveInput, missing: MissingAttachments, remembered: RememberedIds): Ingest {
  const { config, backend, logger, metrics } = b
  const served = i.served
  const { docs } = served
  const retractions = retractionsFor(b, i.membership)
  const fetcher = createAttachmentFetcher({
    fetch: (id, groupId) => backend.getAttachment(id, groupId),
    // What the daemon can hand back in one response bounds the fetched (deflated) frame too.
    maxPayloadBytes: Math.min(config.attachments.maxFrameBytes, MAX_ATTACHMENT_READ_BYTES),
    timeoutMs: config.attachments.fetchTimeoutMs,
    maxInFlight: 4,
    maxWaiting: 64,
  })
  return createIngest({
    docOfGroup: (groupId) => docs.servedIn(groupId),
    maxFrameBytes: config.browser.maxFrameBytes,
    maxAttachmentFrameBytes: config.attachments.maxFrameBytes,
    maxBodyBytes: receiveBodyBound(config),
    reassembly: config.reassembly,
    dedup: config.dedup,
    ownSends: served.ownSends,
    remembered,
    now: b.clock.now,
    deliver: (docId, frame, env, from, source) => {
      // A member's sidecar heard in the group has joined the document (the page stops saying invited).
      if (source !== SELF) served.library?.heard(docId, from)
      return docs.fromGroup(docId, frame, env, from, source)
    },
    refused: (docId, from, sent) => {
      const groupId = docs.get(docId)?.groupId
      const author = from?.number ?? from?.uuid
      if (sent !== undefined && groupId !== undefined && author !== undefined)
        retractions?.refused(groupId, author, sent)
    },
    readDeflate: config.capabilities.includes('deflate'),
    refusesContent: (docId, from) => docs.get(docId)?.roles.refusesContent(from) === true,
    ...(config.capabilities.includes('attachments') ? { attachments: fetcher } : {}),
    onLost: (docId, reason, source) => {
      docs.lost(docId, source)
      if (reason === 'missing') missing.missed(docId, source)
    },
    onFetched: (docId, source) => missing.fetched(docId, source),
    metrics,
    logger,
  })
}

function memberCheck(b: Basics, i: ReceiveInput): Membership {
  const { config, clock, metrics, logger } = b
  return createMembership({
    membership: i.membership,
    groupIds: config.documents.map((d) => d.groupId),
    serves: (groupId) => i.served.docs.servedIn(groupId) !== undefined,
    minRefreshGapMs: Math.min(config.membersRefreshMs, 5_000),
    maxHeld: 256,
    now: clock.now,
    dropped: (reason) => metrics.receivedDropped.inc({ reason }),
    onListFailed: (error) => logger.warn({ err: error }, 'listGroups failed; keeping the last member list'),
  })
}

export function startReceive(b: Basics, i: ReceiveInput): Phase<EventsLoop> {
  const { config, metrics, logger } = b
  const { docs, chats, library } = i.served
  const missing = missingFor(b, i.served)
  const remembered = rememberedFor(b, i.receivedIds)
  const ingest = ingestFor(b, i, missing, remembered)
  const members = memberCheck(b, i)
  const onEvent = (e: SignalEvent): void => {
    if (e.type === 'message' && chats.isChatGroup(e.groupId)) chats.onSignalMessage(e)
    else if (e.type === 'message') {
      // The account's own devices (sync copies) are one source; other members one each.
      const source = e.origin === 'sync' ? SELF : sourceKey(e.sourceUuid, e.sourceNumber)
      members.admit(e.groupId, e, () =>
        ingest.handle(e.groupId, e.body, {
          from: { uuid: e.sourceUuid, number: e.sourceNumber },
          source,
          attachments: e.attachments ?? [],
          ...(e.origin === 'data' && e.timestamp !== undefined ? { sent: e.timestamp } : {}),
        }),
      )
    } else if (e.type === 'group-update') {
      metrics.groupUpdates.inc()
      // Before the listing it brings: a demotion that listing shows names who changed the group.
      docs.groupChanged(e.groupId, e.sourceNumber)
      library?.onGroupUpdate(e.groupId, e.sourceNumber)
    } else if (e.type === 'note-to-self') i.noteToSelf?.(e)
    else metrics.eventsSkipped.inc({ reason: e.reason })
  }
  const { first, abort } = i.daemon.takeStream()
  const events = runEventsLoop(first, abort, {
    backend: b.backend,
    policy: { baseMs: config.events.reconnectBaseMs, maxMs: config.events.reconnectMaxMs },
    rng: b.clock.rng,
    sleep: b.clock.sleep,
    onEvent,
    onRecoveryRequired: (error: BroadcastRecoveryRequiredError) => {
      logger.error({ err: error }, 'transport history at risk; asking browsers for snapshots (4409)')
      for (const doc of docs.values())
        if (error.groupIds.includes(doc.groupId))
          doc.pages.close(CLOSE_CODES.HISTORY_AT_RISK, 'history at risk; send a full snapshot')
    },
    onReconnect: () => metrics.streamReconnects.inc(),
    logger,
  })
  return {
    part: events,
    close: async () => {
      await events.stop()
      remembered.flush()
      members.dispose()
      missing.dispose()
    },
  }
}
