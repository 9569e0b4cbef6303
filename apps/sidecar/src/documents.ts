/**
 * The documents one sidecar serves, by document id and by group id. Documents are added and
 * removed while the sidecar runs (one created from the page is served at once; one left stops
 * at once); each {@link Document} owns its sessions, queue and timers. Every document, configured
 * or made at run time, shares one Signal reachability and keeps its accepted changes in the durable
 * outbox until Signal takes them.
 * @see docs/sidecar.md §4.3–§4.7, §8
 */
import { CAPABILITY, type Envelope } from '@e2e-col/protocol'
import { createDocument, type Document, type DocumentContext } from './document.ts'
import { StoreError } from './errors.ts'
import type { MemberId } from './group/roster.ts'
import type { DocReplica } from './replica/replica.ts'
import { deflateFrame } from './send/deflate-frame.ts'
import { createTokenBucket } from './send/token-bucket.ts'

export type { Document } from './document.ts'

/** What the collection is given: the documents' shared context, less what the collection makes itself. */
export interface DocumentsOptions extends Pick<
  DocumentContext,
  | 'config'
  | 'backend'
  | 'reach'
  | 'clock'
  | 'store'
  | 'sidecarId'
  | 'self'
  | 'markSent'
  | 'answerRank'
  | 'stopped'
  | 'storing'
  | 'metrics'
  | 'logger'
> {
  /** Stops the sidecar because the store failed. */
  readonly fatal: (error: unknown) => void
}

export interface Documents {
  has(docId: string): boolean
  get(docId: string): Document | undefined
  /** The document carried by a group, if served. */
  byGroup(groupId: string): Document | undefined
  values(): IterableIterator<Document>
  readonly size: number
  /**
   * Starts serving a document over its group with its loaded replica.
   * @throws Error when the document or the group is served already
   */
  add(docId: string, groupId: string, replica: DocReplica): Document
  /** Stops serving a document: its queue stops and its sockets close with `code`. */
  remove(docId: string, code: number, reason: string): void
  /** An envelope from a group, deduplicated by the receive path; `from` is its Signal sender, `source` its key. */
  fromGroup(docId: string, frame: Uint8Array, env: Envelope, from?: MemberId, source?: string): void
  /** The group's listed members changed (or were read again). */
  setMembers(groupId: string, members: readonly MemberId[]): void
  /** Content sent to the document's group did not arrive whole: ask the group again (bounded). */
  lost(docId: string): void
  /** Stops announcing `feature` in every group (this machine cannot use it) and says so. */
  withdraw(feature: number): void
  /** Queues the changes a previous run accepted and Signal never took (call once, when started). */
  resumeKept(): void
  /** Waits (bounded) until every send queue is empty. */
  drain(timeoutMs: number): Promise<void>
  /** Frame bytes still waiting in the send queues. */
  queuedBytes(): number
  /** Stops every document's queue and timers, and closes every socket with `code`. */
  close(code: number, reason: string): void
}

// Sent ids are pruned by age at most this often.
const PRUNE_EVERY_MS = 3_600_000

export function createDocuments(o: DocumentsOptions): Documents {
  const { config, clock, store, metrics } = o
  const docs = new Map<string, Document>()
  const groups = new Map<string, Document>()
  let batchSeq = 0
  let ownSeq = 0
  let resumed = false
  let lastPrune = clock.now()
  const features =
    (config.capabilities.includes('deflate') ? CAPABILITY.deflate : 0) |
    (config.capabilities.includes('attachments') ? CAPABILITY.attachments : 0)
  // Signal's attachmentCreate limit is per account (50, one per 1.2 s): one bucket for all groups.
  const uploads = createTokenBucket({ ratePerSecond: 1 / 1.2, burst: 50, now: clock.now() })

  const { fatal, ...shared } = o
  const context: DocumentContext = {
    ...shared,
    features,
    takeUpload: () => uploads.tryTake(clock.now()),
    rememberSent(docId, ids) {
      if (o.stopped()) throw new StoreError(store.path, 'the sidecar is stopping')
      try {
        store.sentIds.remember(docId, o.sidecarId, ids, clock.now())
        if (clock.now() - lastPrune > PRUNE_EVERY_MS) {
          lastPrune = clock.now()
          store.sentIds.prune(lastPrune - config.replica.sentIdsTtlMs)
        }
      } catch (error) {
        fatal(error)
        throw error
      }
    },
    deflate: config.send.compress
      ? async (frame) => {
          const smaller = await deflateFrame(frame, config.maxBodyBytes)
          if (smaller !== frame) {
            metrics.envelopesDeflated.inc()
            metrics.deflateSavedBytes.inc(frame.byteLength - smaller.byteLength)
          }
          return smaller
        }
      : undefined,
    nextBatchSeq: () => batchSeq++,
    nextOwnSeq: () => ownSeq++,
  }

  // Signal went away or came back: every document (configured or added since) hears it.
  o.reach.onChange((state) => {
    for (const doc of docs.values()) doc.reachChanged(state)
  })

  metrics.replicaSyncSource.read = () => {
    const all = [...docs.values()].map((d) => d.groupSync.stats())
    return {
      answered: all.reduce((n, s) => n + s.answered, 0),
      suppressed: all.reduce((n, s) => n + s.suppressed, 0),
      askedBack: all.reduce((n, s) => n + s.askedBack, 0),
    }
  }

  return {
    has: (docId) => docs.has(docId),
    get: (docId) => docs.get(docId),
    byGroup: (groupId) => groups.get(groupId),
    values: () => docs.values(),
    get size() {
      return docs.size
    },
    add(docId, groupId, replica) {
      if (docs.has(docId)) throw new Error(`document ${docId} is served already`)
      if (groups.has(groupId)) throw new Error(`group ${groupId} carries a document already`)
      const doc = createDocument(context, docId, groupId, replica)
      docs.set(docId, doc)
      groups.set(groupId, doc)
      // Added after the start: what a previous run kept for it goes out now, as for the others.
      if (resumed) doc.resumeKept()
      return doc
    },
    remove(docId, code, reason) {
      const doc = docs.get(docId)
      if (doc === undefined) return
      docs.delete(docId)
      groups.delete(doc.groupId)
      doc.close(code, reason)
    },
    fromGroup(docId, frame, env, from, source) {
      docs.get(docId)?.fromGroup(frame, env, from, source)
    },
    setMembers(groupId, members) {
      groups.get(groupId)?.capabilities.roster.setMembers(members)
    },
    lost: (docId) => docs.get(docId)?.gapRepair.lost(),
    withdraw(feature) {
      for (const doc of docs.values()) doc.capabilities.withdraw(feature)
    },
    resumeKept() {
      resumed = true
      for (const doc of docs.values()) doc.resumeKept()
    },
    async drain(timeoutMs) {
      // While Signal is away nothing would go out: what is queued is in the outbox for the next start.
      if (o.reach.state !== 'reachable') return
      await Promise.all([...docs.values()].map((d) => d.queue.drain(timeoutMs)))
    },
    queuedBytes: () => [...docs.values()].reduce((n, d) => n + d.queue.queuedBytes, 0),
    close(code, reason) {
      for (const doc of docs.values()) doc.close(code, reason)
    },
  }
}
