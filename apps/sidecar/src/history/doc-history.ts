/**
 * One document's history as its replica changes: every change is logged with its time and origin;
 * a version is recorded when a spell of edits goes quiet (or has run `maxSpellMs`), before and
 * after a change from a member who was away (catch-up), and on demand (before and after a restore,
 * at close). At each version the spell's changes are merged per author, old changes are dropped
 * after `changeDays`, and the versions the retention policy no longer keeps are dropped and logged.
 * @see docs/sidecar.md "History", docs/decisions/0018-document-history.md
 */
import type { Timers } from '@e2e-col/sync'
import * as Y from 'yjs'
import type { Logger } from '../ops/logger.ts'
import type { ChangeOrigin, DocReplica, ReplicaObserver } from '../replica/replica.ts'
import type { HistoryTable, PendingChange, StoredChange, VersionRow } from './history-table.ts'
import { restoreWatch } from './restore-record.ts'
import type { LoggedChange } from './revert.ts'
import { rootKinds } from './shared-kinds.ts'
import { mergeSpell, pruneHistory, resolveVersion, WHOLE_EVERY } from './version-rows.ts'

// The settings are parsed once, with the rest of the configuration (config.ts).
export type { HistoryPolicy } from '../config.ts'
import type { HistoryPolicy } from '../config.ts'

export interface HistoryPorts {
  readonly table: HistoryTable
  readonly timers: Timers
  /** This account's number (or Signal id): the author of this person's page and of the sidecar. */
  readonly self: string
  /** Runs a step that touches the store; a store failure stops the sidecar (undefined then). */
  storing<T>(fn: () => T): T | undefined
  readonly logger: Logger
}

/** What revert needs: the state at a moment, and the changes since, with their authors. */
export interface ChangesSince {
  readonly base: Uint8Array[]
  readonly later: LoggedChange[]
  /** Whether base and later make the document now exactly (else a revert would undo only part). */
  readonly exact: boolean
}

/** How a restore's version row is stored: the version restored, its time, and the client id it wrote under. */
export const restoreReason = (versionId: number, versionAt: number, clientId: number): string =>
  `restore:${versionId}:${versionAt}:${clientId}`

/** A stored restore reason read back; undefined for any other reason. */
export function readRestoreReason(
  reason: string,
): { versionId: number; versionAt: number; clientId: number } | undefined {
  const m = /^restore:(\d{1,15}):(\d{1,15}):(\d{1,15})$/.exec(reason)
  return m === null ? undefined : { versionId: Number(m[1]), versionAt: Number(m[2]), clientId: Number(m[3]) }
}

export interface DocHistory extends ReplicaObserver {
  /** Versions newest first, older than `before` when given. */
  list(before: number | undefined, limit: number): VersionRow[]
  version(id: number): VersionRow | undefined
  /** A version's whole state as a Yjs update. */
  state(id: number): Uint8Array | undefined
  /** Records a version now, with the reason; the last version when nothing changed since it. */
  record(reason: string): VersionRow | undefined
  /**
   * The document as it stood at `since` (the newest version at or before it, or no version, plus
   * the logged changes up to it) and the changes after it; undefined when none is kept. Whether
   * they make the document now exactly is said in `exact`.
   */
  since(at: number): ChangesSince | undefined
  /**
   * The oldest moment a revert can start from exactly: the time of the oldest version from which
   * the kept changes rebuild the document (0 when the whole change log does, from nothing), undefined when
   * none does. Searched by halves: a version that works makes every later one work.
   */
  oldestExact(): number | undefined
  /** True while changes wait for their version (a spell not yet recorded). */
  pending(): boolean
  /** Records what is pending and stops the timers. */
  close(): void
}

/** Characters of text the document holds (Y.Text roots and the text in XML roots). */
function charsOf(doc: Y.Doc): number {
  let n = 0
  for (const [name, kind] of rootKinds(doc)) {
    if (kind === 'text') n += doc.getText(name).length
    else if (kind === 'xml') n += countXml(doc.getXmlFragment(name))
  }
  return n
}

function countXml(node: Y.XmlFragment): number {
  let n = 0
  for (const child of node.toArray()) n += child instanceof Y.XmlText ? child.length : countXml(child as Y.XmlFragment)
  return n
}

/**
 * A version's difference from the last one (at `lastSv`) as the spell's changes merged (`whole`:
 * every change to the replica since that version, this run); for a spell of one author, the bytes
 * its change holds already. Undefined, so the state since the last version is taken, should the
 * document hold a struct the spell does not.
 */
function spellDifference(doc: Y.Doc, lastSv: Uint8Array, whole: Uint8Array | undefined): Uint8Array | undefined {
  if (whole === undefined) return undefined
  const { from, to } = Y.parseUpdateMeta(whole)
  const before = Y.decodeStateVector(lastSv)
  for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVector(doc))) {
    const had = before.get(client) ?? 0
    if (clock <= had) continue
    if ((from.get(client) ?? Infinity) > had || (to.get(client) ?? 0) < clock) return undefined
  }
  return whole
}

/**
 * What a document's history keeps across its loads into memory (decisions/0040): when each member
 * was last heard (an absence starts a catch-up version), and the last version's state vector and
 * chain of differences (the next version is a difference, not the whole state).
 */
export interface HistoryCarry {
  readonly heard: Map<string, number>
  lastSv?: Uint8Array
  chain: number
}

export function createDocHistory(
  docId: string,
  replica: DocReplica,
  policy: HistoryPolicy,
  ports: HistoryPorts,
  carry: HistoryCarry = { heard: new Map(), chain: 0 },
): DocHistory {
  const { table, timers, logger } = ports
  let last: VersionRow | undefined = ports.storing(() => table.versions(docId, undefined, 1)[0])
  /** The spell: authors since the last version, and when it started. */
  let authors = new Set<string>()
  let spellStart: number | undefined
  let timer: unknown
  // The last version's state vector and differences since a whole one are in `carry`.
  const { heard } = carry
  // What Signal names is untrusted: a line break could not be stored as one author.
  const authorOf = (origin: ChangeOrigin): string =>
    origin.via === 'member' ? (origin.author ?? '').replace(/[\r\n]/g, '').slice(0, 64) : ports.self

  function record(reason: string): VersionRow | undefined {
    if (timer !== undefined) timers.clearTimeout(timer)
    timer = undefined
    if (last !== undefined && spellStart === undefined) return last
    const now = timers.now()
    // The newest version is never dropped, so a difference from it always has its base.
    const { lastSv, chain } = carry
    const base = last !== undefined && lastSv !== undefined && chain < WHOLE_EVERY ? last.id : undefined
    const row = ports.storing(() =>
      table.atomically(() => {
        const { lastChange, whole, single } = mergeSpell(table, docId, last?.lastChange ?? 0)
        const merged =
          base === undefined || lastSv === undefined ? undefined : spellDifference(replica.doc, lastSv, whole())
        const state = merged ?? Y.encodeStateAsUpdate(replica.doc, base === undefined ? undefined : lastSv)
        // A spell of one author: the version's difference is that change's bytes, kept once.
        const same = merged === undefined ? undefined : single
        return table.addVersion(
          docId,
          { at: now, reason, authors: [...authors], chars: charsOf(replica.doc), lastChange },
          state,
          base,
          same,
        )
      }),
    )
    if (row === undefined) return undefined
    last = row
    carry.lastSv = Y.encodeStateVector(replica.doc)
    carry.chain = base === undefined ? 0 : chain + 1
    authors = new Set()
    spellStart = undefined
    ports.storing(() => pruneHistory(table, docId, now, policy, logger))
    return row
  }

  function schedule(): void {
    if (timer !== undefined) timers.clearTimeout(timer)
    const now = timers.now()
    const wait = Math.max(0, Math.min(policy.quietMs, (spellStart ?? now) + policy.maxSpellMs - now))
    timer = timers.setTimeout(() => {
      timer = undefined
      record('quiet')
    }, wait)
  }

  const newRestore = restoreWatch(replica.doc)
  let catchingUp = false
  /** Whether `stamp` stamped the change `applied` goes on with. */
  let stamped = false
  // Changes a run left unsettled (it stopped before their spell went quiet): a spell of this run,
  // settled into a version when quiet as any other.
  const leftover = ports.storing(() => table.pending(docId)) ?? []
  if (leftover.length > 0) {
    for (const c of leftover) if (c.author !== '') authors.add(c.author)
    spellStart = timers.now()
    schedule()
  }
  // A document with content and no version yet (served before history was kept): its state now
  // is the first version, the base every later version and revert builds on.
  if (last === undefined && replica.doc.store.clients.size > 0) {
    spellStart = timers.now()
    record('start')
  }

  return {
    before(origin) {
      if (origin.via !== 'member') return
      const author = authorOf(origin)
      const seen = heard.get(author)
      const now = timers.now()
      heard.set(author, now)
      if (seen !== undefined && now - seen < policy.absenceMs) return
      // Back from an absence: the document as it stood before is a version of its own.
      if (spellStart !== undefined) record('before-catch-up')
      catchingUp = true
    },
    stamp(origin) {
      // A store failure throws out of the update log's transaction: the sidecar stops then.
      const stamp = table.stamp({ at: timers.now(), via: origin.via, author: authorOf(origin) })
      stamped = true
      return stamp
    },
    applied(_update, origin) {
      const now = timers.now()
      // Not stamped (the store failed; the sidecar is stopping): no version can hold it.
      if (!stamped) return
      stamped = false
      // Content relayed in a sync answer has no author it can be undone by.
      if (authorOf(origin) !== '') authors.add(authorOf(origin))
      spellStart ??= now
      // A member's restore ends a version listed as one: an undo replays what came before and after it in order.
      const restore = newRestore()
      if (restore !== undefined && origin.via === 'member') {
        catchingUp = false
        record(restoreReason(0, restore.versionAt, restore.clientId))
        return
      }
      if (catchingUp) {
        catchingUp = false
        record('catch-up')
        return
      }
      schedule()
    },
    list: (before, limit) => ports.storing(() => table.versions(docId, before, limit)) ?? [],
    version: (id) => ports.storing(() => table.version(docId, id)),
    state: (id) => ports.storing(() => resolveVersion(table, docId, id)),
    record,
    since(at) {
      return ports.storing(() => {
        const base = table.versionAtOrBefore(docId, at)
        const parts = rebuildParts(table, docId, base)
        if (parts === undefined) return { base: [], later: [], exact: false }
        const { state, changes } = parts
        if (base === undefined && changes.length === 0) return undefined
        return {
          base: [...(state === undefined ? [] : [state]), ...changes.filter((c) => c.at < at).map((c) => c.data)],
          later: changes.filter((c) => c.at >= at).map((c) => ({ author: c.author, data: c.data })),
          exact: rebuilds(base, parts, replica.doc),
        }
      })
    },
    oldestExact: () => ports.storing(() => oldestExact(table, docId, replica.doc)),
    pending: () => spellStart !== undefined,
    close() {
      if (spellStart !== undefined) record('closing')
      if (timer !== undefined) timers.clearTimeout(timer)
      timer = undefined
    },
  }
}

/**
 * True when `updates` rebuild `now` exactly: nothing missing in between (no pending structs or
 * deletions) and the same items and deletions (state vector and delete set). A change log with a
 * dropped change, or a version newer than the moment, fails it.
 */
export function rebuildsExactly(updates: readonly Uint8Array[], now: Y.Doc): boolean {
  const work = new Y.Doc({ gc: now.gc })
  try {
    for (const u of updates) Y.applyUpdate(work, u)
    if (work.store.pendingStructs !== null || work.store.pendingDs !== null) return false
    return Y.equalSnapshots(Y.snapshot(work), Y.snapshot(now))
  } finally {
    work.destroy()
  }
}

type RebuildParts = { state: Uint8Array | undefined; changes: (StoredChange | PendingChange)[] }

/** A version's whole state (undefined: from nothing) and every change logged after it; undefined when the version cannot be read. */
function rebuildParts(table: HistoryTable, docId: string, v: VersionRow | undefined): RebuildParts | undefined {
  const state = v === undefined ? undefined : resolveVersion(table, docId, v.id)
  if (v !== undefined && state === undefined) return undefined
  return { state, changes: [...table.changesAfter(docId, v?.lastChange ?? 0), ...table.pending(docId)] }
}

/**
 * Whether `v` (or nothing) and the changes after it make `now` exactly. From nothing only when no
 * change was relayed (a sync answer's content has no author: what this sidecar was given on
 * joining is not the document as it stood then, one person at a time).
 */
function rebuilds(v: VersionRow | undefined, parts: RebuildParts, now: Y.Doc): boolean {
  if (v === undefined && parts.changes.some((c) => c.author === '')) return false
  const updates = [...(parts.state === undefined ? [] : [parts.state]), ...parts.changes.map((c) => c.data)]
  return rebuildsExactly(updates, now)
}

/** {@link DocHistory.oldestExact}: by halves over the versions, oldest first. */
function oldestExact(table: HistoryTable, docId: string, now: Y.Doc): number | undefined {
  const works = (v: VersionRow | undefined): boolean => {
    const parts = rebuildParts(table, docId, v)
    return parts !== undefined && rebuilds(v, parts, now)
  }
  if (works(undefined)) return 0
  const newestFirst = table.versions(docId, undefined, 100_000)
  const oldest = (i: number): VersionRow | undefined => newestFirst[newestFirst.length - 1 - i]
  let [low, high] = [0, newestFirst.length]
  while (low < high) {
    const mid = (low + high) >> 1
    if (works(oldest(mid))) high = mid
    else low = mid + 1
  }
  return oldest(low)?.at
}
