/**
 * What one document needs from the rest of the sidecar, as a few small ports: its rows in the
 * store, the sending side, the sidecar's own envelopes, its group as the answer rule sees it, the
 * receive path's record of what this sidecar sent, Signal's state, and its limits. The collection
 * (documents.ts) builds them once per sidecar and binds them to each document.
 * @see docs/architecture.md "The sidecar's parts"
 */
import type { Envelope, Kind } from '@e2e-col/protocol'
import type { AuthorRows } from '../authorship/author-book.ts'
import type { Clock } from '../clock.ts'
import type { MemberId } from '../group/roster.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { Outbound } from '../send/outbound.ts'
import type { Reachability } from '../send/reachability.ts'
import type { RejoinPort } from '../stranded/rejoin-port.ts'

/** Who first sent a message id of this document, if anyone. */
export type SenderLookup = { readonly known: false } | { readonly known: true; readonly sender: string }

/**
 * The document's rows in the replica store: its outbox and the ids it sent. A store failure stops
 * the sidecar; the calls then answer `undefined` (or `false`) and change nothing.
 */
export interface ChangeStore {
  /** Runs a step that touches the store (the replica applying an update); undefined when it failed. */
  storing<T>(fn: () => T): T | undefined
  senderOf(messageId: string): SenderLookup | undefined
  /** Keeps a browser's change until Signal takes it; false when the store failed. */
  accept(senderId: string, messageId: string, frame: Uint8Array): boolean
  /** The changes a previous run accepted and Signal never took, oldest first. */
  kept(): readonly { readonly frame: Uint8Array; readonly messageId: string }[]
  /** How many accepted changes Signal has not taken. */
  unsent(): number
  /** Signal took these changes: their outbox rows go. */
  delivered(messageIds: readonly string[]): void
  /**
   * Signal definitely refused these changes: out of the outbox, and their ids forgotten. The
   * change stays in the replica and reaches the group with the next sync (docs/sidecar.md §4.3).
   */
  dropUnsent(messageIds: readonly string[]): void
  /** Remembers a send's ids durably before its first body goes out (§8.5). @throws StoreError */
  rememberSent(messageIds: readonly string[]): void
}

/** The sidecar's own envelopes (sync answers and requests, merged backlogs), from its one sender id. */
export interface OwnEnvelopes {
  readonly sidecarId: string
  /** An envelope of `docId` with a fresh message id, next in the sidecar's own sequence. */
  make(docId: string, kind: Kind, payload: Uint8Array): Envelope
}

/** The document's group as the capability exchange and the answer rule see it. */
export interface GroupSeat {
  /** This sidecar's Signal account, so its own devices are not counted as members. */
  readonly self: MemberId
  /** The CAPABILITY bits this sidecar uses and announces. */
  readonly features: number
  /** Whether it announces its pages' client ids (decisions/0023). */
  readonly announceAuthors: boolean
  /** Whether its pages are told their author tag (decisions/0023; off only to measure the cost). */
  readonly derivedClientIds: boolean
  /** This member's rank among those who may answer the group request (replica/answer-rule.ts). */
  answerRank(groupId: string, requestId: string, asker: string): number
}

/** The receive path's record of what this sidecar sends, so Signal's copy of it is dropped. */
export interface SentRecord {
  markSent(docId: string, senderId: string, messageId: string): void
}

/** The limits a document runs under (from the sidecar's configuration). */
export interface DocumentLimits {
  readonly maxFrameBytes: number
  readonly maxBodyBytes: number
  readonly sendsPerSecond: number
  readonly syncDelayMs: { readonly min: number; readonly max: number }
  /** A changing replica announces its state vector at most this often. */
  readonly healthIntervalMs: number
}

export interface DocumentPorts {
  /** The rows of the document being made (bound to its id). */
  readonly store: ChangeStore
  /** Its authors' rows (bound to its id): who each client id belongs to. */
  readonly authors: AuthorRows
  readonly outbound: Outbound
  readonly own: OwnEnvelopes
  readonly group: GroupSeat
  readonly sent: SentRecord
  /** Whether Signal takes sends now, as the pages are told. */
  readonly reach: Pick<Reachability, 'state' | 'since'>
  readonly limits: DocumentLimits
  readonly clock: Clock
  readonly metrics: Metrics
  readonly logger: Logger
  /** A member's name as this person's contacts tell it apart (people/told-apart.ts), when known. */
  readonly shownName?: ((number: string) => string | undefined) | undefined
  /** Settling a demotion: edits not shared, and serving the document anew (decisions/0032). */
  readonly rejoin?: RejoinPort | undefined
}
