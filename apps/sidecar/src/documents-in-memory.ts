/**
 * The served documents that are in memory now (decisions/0040): a document is built over its
 * replica on first use and taken out when quiet (replica/residency.ts says which); what outlives
 * it (what its members announced, listeners registered with `onLoad`) is kept here and given back
 * on the next load. The collection (documents.ts) owns which documents are served.
 * @see docs/sidecar.md §8.8
 */
import { CLOSE_CODES } from '@e2e-col/protocol'
import type { Clock } from './clock.ts'
import type { SidecarConfig } from './config.ts'
import type { Document, DocumentCarry, SyncStats } from './document/document.ts'
import type { Histories } from './history/histories.ts'
import type { Logger } from './ops/logger.ts'
import type { Metrics } from './ops/metrics.ts'
import { loadReplica, type DocReplica } from './replica/replica.ts'
import { createResidency, type Standing } from './replica/residency.ts'
import type { ReplicaStore } from './replica/store.ts'
import type { Reachability } from './send/reachability.ts'

/** What keeping documents in memory needs of the sidecar (the collection's options, seen narrowly). */
export interface MemoryPorts {
  readonly config: { readonly replica: Pick<SidecarConfig['replica'], 'evictAfterMs' | 'maxLoaded' | 'syncOnStart'> }
  readonly clock: Clock
  readonly reach: Pick<Reachability, 'onChange'>
  readonly store: ReplicaStore
  readonly histories?: Pick<Histories, 'attach' | 'detach' | 'forget' | 'get'>
  storing<T>(fn: () => T): T | undefined
  stopped(): boolean
  readonly metrics: Metrics
  readonly logger: Logger
}

/** Builds a document over its loaded replica (`carry`: what its last stay in memory left). */
export type BuildDocument = (docId: string, groupId: string, replica: DocReplica, carry?: DocumentCarry) => Document

type Hook = (doc: Document) => (() => void) | void

export interface DocumentsInMemory {
  readonly docs: ReadonlyMap<string, Document>
  /** The document in memory, loaded from the store first when it is out (undefined: the store failed, or closing). */
  load(docId: string, groupId: string): Document | undefined
  /** Builds a document over a replica the caller loaded (made at run time, or served anew). */
  open(docId: string, groupId: string, replica: DocReplica): Document
  /** Calls `hook` on each load from now on (and on the documents in memory); what it returns runs when one leaves. */
  onLoad(hook: Hook): void
  /** The document is no longer served: out of memory, its sockets closed with `code`, nothing of it kept. */
  forget(docId: string, code: number, reason: string): void
  /** Loads what `served` holds kept sends for, then the first served up to the bound; all greet. */
  start(served: ReadonlyMap<string, string>): void
  close(code: number, reason: string): void
}

/** How a document in memory stands (replica/residency.ts): what leaving would lose or delay. */
function standingOf(o: Pick<MemoryPorts, 'histories' | 'storing' | 'store'>, doc: Document | undefined): Standing {
  if (doc === undefined) return { safe: false, quiet: false }
  const safe =
    doc.pages.count === 0 &&
    doc.outbox.queuedBytes === 0 &&
    o.histories?.get(doc.docId)?.pending() !== true &&
    o.storing(() => o.store.outbox.count(doc.docId)) === 0
  return { safe, quiet: safe && !doc.group.busy() }
}

/** Runs `hooks` on a document come into memory; what they return, to run when it leaves. */
function runHooks(hooks: readonly Hook[], doc: Document): (() => void)[] {
  const offs: (() => void)[] = []
  for (const hook of hooks) {
    const off = hook(doc)
    if (off !== undefined) offs.push(off)
  }
  return offs
}

const syncTotals = (all: readonly SyncStats[]): SyncStats => ({
  answered: all.reduce((n, s) => n + s.answered, 0),
  suppressed: all.reduce((n, s) => n + s.suppressed, 0),
  askedBack: all.reduce((n, s) => n + s.askedBack, 0),
})

export function createDocumentsInMemory(o: MemoryPorts, build: BuildDocument): DocumentsInMemory {
  const { metrics } = o
  const docs = new Map<string, Document>()
  const replicas = new Map<string, DocReplica>()
  // Documents taken out while an ask of the group waited: their next load asks at once.
  const askOnLoad = new Set<string>()
  // What each served document's last stay in memory left (DocumentCarry: what bounds its members).
  const carries = new Map<string, DocumentCarry>()
  const hooks: Hook[] = []
  const unhooks = new Map<string, (() => void)[]>()
  // Documents served at start that have not greeted their group (and asked it) yet in this run;
  // one made or accepted while the sidecar runs is greeted by the library's own steps, as before.
  const toGreet = new Set<string>()
  const residency = createResidency({
    evictAfterMs: o.config.replica.evictAfterMs,
    maxLoaded: o.config.replica.maxLoaded,
    now: o.clock.now,
  })
  let started = false
  let closed = false
  // Sync counts of documents that left memory, so the totals do not drop when one leaves.
  const retired = { answered: 0, suppressed: 0, askedBack: 0 }

  // Signal went away or came back: every document in memory hears it (one loaded later starts with it).
  o.reach.onChange((state) => {
    for (const doc of docs.values()) doc.outbox.reachChanged(state)
  })
  metrics.replicaSyncSource.read = () => syncTotals([retired, ...[...docs.values()].map((d) => d.group.syncStats())])

  const standing = (docId: string): Standing => standingOf(o, docs.get(docId))

  /** Takes a document out of memory; its listeners stop and its history is detached. */
  function takeOut(docId: string): Document | undefined {
    const doc = docs.get(docId)
    if (doc === undefined) return undefined
    Object.assign(retired, syncTotals([retired, doc.group.syncStats()]))
    docs.delete(docId)
    // Anything still holding the old replica (a request that waited for its body) changes nothing.
    replicas.get(docId)?.close()
    replicas.delete(docId)
    residency.forget(docId)
    for (const off of unhooks.get(docId) ?? []) off()
    unhooks.delete(docId)
    o.histories?.detach(docId)
    metrics.documentsInMemory.set(docs.size)
    return doc
  }

  /** Takes quiet documents out of memory (and, before a load, makes room for `room` more). */
  function evictDue(room = 0): void {
    for (const docId of residency.due(standing, room)) {
      if (docs.get(docId)?.group.busy() === true) askOnLoad.add(docId)
      takeOut(docId)?.close(CLOSE_CODES.GOING_AWAY, 'the document left memory')
      metrics.documentMoves.inc({ move: 'out' })
      o.logger.debug({ docId }, 'document left memory')
    }
  }

  /** A document's first load in this run announces it and asks the group what it lacks. */
  function greet(doc: Document): void {
    if (!toGreet.delete(doc.docId)) return
    doc.group.greet()
    if (o.config.replica.syncOnStart) doc.group.ask()
  }

  function open(docId: string, groupId: string, replica: DocReplica): Document {
    evictDue(1)
    const doc = build(docId, groupId, replica, carries.get(docId))
    carries.set(docId, doc.carry)
    docs.set(docId, doc)
    replicas.set(docId, replica)
    residency.touch(docId)
    metrics.documentsInMemory.set(docs.size)
    o.histories?.attach(docId, replica)
    unhooks.set(docId, runHooks(hooks, doc))
    if (started) {
      // Loaded after the start: what a previous run kept for it goes out now, as for the others.
      doc.outbox.resumeKept()
      greet(doc)
    }
    // Its ask was dropped when the bound took it out: asked now (once per such load).
    if (askOnLoad.delete(docId) && started) doc.group.ask()
    return doc
  }

  function load(docId: string, groupId: string): Document | undefined {
    const inMemory = docs.get(docId)
    if (inMemory !== undefined) {
      residency.touch(docId)
      return inMemory
    }
    if (closed || o.stopped()) return undefined
    // A log that does not load stops the sidecar (storing): a replica never serves empty over real data.
    const replica = o.storing(() => loadReplica(o.store, docId))
    if (replica === undefined) return undefined
    metrics.documentMoves.inc({ move: 'in' })
    o.logger.debug({ docId }, 'document loaded into memory')
    return open(docId, groupId, replica)
  }

  // Quiet documents leave memory on a timer too (not only when another one loads).
  const sweepMs = Math.max(1000, Math.min(30_000, o.config.replica.evictAfterMs / 2 || 30_000))
  let sweep: unknown
  const sweepLater = (): void => {
    sweep = o.clock.setTimeout(() => {
      evictDue()
      if (!closed) sweepLater()
    }, sweepMs)
    ;(sweep as { unref?: () => void }).unref?.()
  }
  sweepLater()

  return {
    docs,
    load,
    open,
    onLoad(hook) {
      hooks.push(hook)
      for (const doc of docs.values()) unhooks.get(doc.docId)?.push(...runHooks([hook], doc))
    },
    forget(docId, code, reason) {
      carries.delete(docId)
      askOnLoad.delete(docId)
      toGreet.delete(docId)
      takeOut(docId)?.close(code, reason)
      o.histories?.forget(docId)
    },
    start(served) {
      for (const docId of served.keys()) toGreet.add(docId)
      // What a previous run accepted and Signal never took: its documents come into memory for it.
      const kept = o.storing(() => [...served.keys()].filter((docId) => o.store.outbox.count(docId) > 0)) ?? []
      for (const docId of kept) load(docId, served.get(docId) ?? '')
      // Then the first served ones up to the bound, announced and caught up as before (a start
      // with few documents behaves as it always did); the rest load on first use.
      for (const [docId, groupId] of served) {
        if (docs.size >= o.config.replica.maxLoaded) break
        load(docId, groupId)
      }
      // Once each (`open` does both only for documents loaded after this).
      for (const doc of docs.values()) doc.outbox.resumeKept()
      for (const doc of docs.values()) greet(doc)
      started = true
    },
    close(code, reason) {
      closed = true
      o.clock.clearTimeout(sweep)
      for (const doc of docs.values()) doc.close(code, reason)
    },
  }
}
