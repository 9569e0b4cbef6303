/**
 * The history of every served document, by document id: attached to a replica when its document
 * is served, closed (what is pending recorded) when it stops; and the two actions that change a
 * document from its history, restore and revert, each a version before and after.
 * @see docs/documents.md "History"
 */
import type { Timers } from '@e2e-col/sync'
import type { Logger } from '../ops/logger.ts'
import type { DocReplica } from '../replica/replica.ts'
import {
  createDocHistory,
  restoreReason,
  type DocHistory,
  type HistoryCarry,
  type HistoryPolicy,
} from './doc-history.ts'
import { HistoryError } from './history-error.ts'
import type { HistoryTable, VersionRow } from './history-table.ts'
import { CLIENT_ID_RANDOM_BITS, clientIdFor } from '@e2e-col/protocol'
import { randomInt } from 'node:crypto'
import * as Y from 'yjs'
import { authorTagOfAccount } from '../authorship/author-tag.ts'
import { restoreChange } from './restore.ts'
import { revertChange } from './revert.ts'

export interface HistoriesOptions {
  readonly table: HistoryTable
  readonly policy: HistoryPolicy
  readonly timers: Timers
  /** This account's number (or Signal id). */
  readonly self: () => string
  storing<T>(fn: () => T): T | undefined
  /** True for a document this person left (kept in the store, not served). */
  left(docId: string): boolean
  readonly logger: Logger
}

/** Applies a change the sidecar makes, durable and sent to the group; false when not applied. */
export type Edit = (update: Uint8Array) => boolean

export interface Histories {
  attach(docId: string, replica: DocReplica): DocHistory
  /** The document left memory: its history stops, what it carries to the next load is kept. */
  detach(docId: string): void
  /** The document is no longer served (or is served anew from another state): nothing is carried. */
  forget(docId: string): void
  get(docId: string): DocHistory | undefined
  /** The served document's replica (the review API reads a copy of it), undefined when not served. */
  replicaOf(docId: string): DocReplica | undefined
  /** A fresh client id under this account's author tag, undefined when the account has no number. */
  writerId(): number | undefined
  /** True for a document this person left. */
  left(docId: string): boolean
  /** This account's number (or Signal id): the author of this person's changes. */
  you(): string
  /** Makes the document equal to version `versionId`; the new version. */
  restore(docId: string, versionId: number, edit: Edit): VersionRow
  /** Undoes `author`'s changes since `since`; the new version, undefined when there was nothing to undo. */
  revert(docId: string, author: string, since: number, edit: Edit): VersionRow | undefined
  /** The document's whole state as {@link revert} would leave it, nothing changed or recorded. */
  previewRevert(docId: string, author: string, since: number): Uint8Array
  close(): void
}

/** HISTORY_TOO_OLD naming the oldest moment a revert can start from (`oldest`, ms). */
function tooOld(history: DocHistory, windowStart: number): HistoryError {
  const exact = history.oldestExact()
  const oldest = exact === undefined ? undefined : Math.max(exact, windowStart)
  return new HistoryError(
    'HISTORY_TOO_OLD',
    oldest === undefined
      ? 'the changes kept no longer rebuild this document; restore a version instead'
      : `changes before ${new Date(oldest).toISOString()} are no longer kept one by one; choose that time or later, or restore a version`,
    oldest === undefined ? {} : { oldest },
  )
}

/** Applies `update` between two versions: the document before it and the document after. */
/** `recorded`: the reason as stored (a revert's names whose changes it undid: `revert:+4915…`). */
function change(history: DocHistory, reason: string, update: Uint8Array, edit: Edit, recorded = reason): VersionRow {
  history.record(`before-${reason}`)
  if (!edit(update)) throw new HistoryError('HISTORY_NOT_APPLIED', `the ${reason} could not be applied`)
  const row = history.record(recorded)
  if (row === undefined) throw new HistoryError('HISTORY_NOT_APPLIED', `the ${reason} could not be recorded`)
  return row
}

export function createHistories(o: HistoriesOptions): Histories {
  // A restore or revert is this account's writing: under a fresh id of its author tag (decisions/0023).
  const writer = (): number | undefined => {
    const self = o.self()
    return self.startsWith('+')
      ? clientIdFor(authorTagOfAccount(self), randomInt(2 ** CLIENT_ID_RANDOM_BITS))
      : undefined
  }
  const served = new Map<string, { history: DocHistory; replica: DocReplica }>()
  const carried = new Map<string, HistoryCarry>()

  /** The update that undoes `author`'s changes since `since`, exact or refused; undefined when there is nothing to undo. */
  function undoOf(docId: string, author: string, since: number): Uint8Array | undefined {
    const { history, replica } = entry(docId)
    const windowStart = o.timers.now() - o.policy.changeDays * 86_400_000
    if (since < windowStart) throw tooOld(history, windowStart)
    const changes = history.since(since)
    if (changes === undefined) return undefined
    // Exact or refused: a base that is not the document as it stood then would undo only part.
    if (!changes.exact) throw tooOld(history, windowStart)
    return revertChange(changes.base, changes.later, author, replica.doc, writer())
  }

  function entry(docId: string): { history: DocHistory; replica: DocReplica } {
    const e = served.get(docId)
    if (e === undefined) throw new HistoryError('HISTORY_UNKNOWN_DOCUMENT', 'this sidecar does not serve that document')
    return e
  }

  function detach(docId: string): void {
    const e = served.get(docId)
    if (e === undefined) return
    served.delete(docId)
    e.replica.observe(undefined)
    e.history.close()
  }

  return {
    attach(docId, replica) {
      served.get(docId)?.history.close()
      // Kept across the document's loads into memory (decisions/0040); one small entry per document.
      let carry = carried.get(docId)
      if (carry === undefined) carried.set(docId, (carry = { heard: new Map(), chain: 0 }))
      const ports = { table: o.table, timers: o.timers, self: o.self(), storing: o.storing, logger: o.logger }
      const history = createDocHistory(docId, replica, o.policy, ports, carry)
      replica.observe(history)
      served.set(docId, { history, replica })
      return history
    },
    detach,
    forget(docId) {
      detach(docId)
      carried.delete(docId)
    },
    get: (docId) => served.get(docId)?.history,
    replicaOf: (docId) => served.get(docId)?.replica,
    writerId: writer,
    left: (docId) => o.left(docId),
    you: () => o.self(),
    restore(docId, versionId, edit) {
      const { history, replica } = entry(docId)
      const state = history.state(versionId)
      const version = history.version(versionId)
      if (state === undefined || version === undefined)
        throw new HistoryError('HISTORY_UNKNOWN_VERSION', 'no such version of this document')
      // The restore's own client id, kept with its version: an undo finds the letters it re-created.
      const clientId = writer() ?? randomInt(1, 2 ** 31)
      const update = restoreChange(replica.doc, state, clientId, version.at)
      return change(history, 'restore', update, edit, restoreReason(versionId, version.at, clientId))
    },
    revert(docId, author, since, edit) {
      const { history } = entry(docId)
      // The spell in progress becomes a version first, so its changes are in the log as they are.
      history.record('before-revert')
      const update = undoOf(docId, author, since)
      return update === undefined ? undefined : change(history, 'revert', update, edit, `revert:${author}`)
    },
    previewRevert(docId, author, since) {
      const { replica } = entry(docId)
      const update = undoOf(docId, author, since)
      const after = new Y.Doc()
      try {
        Y.applyUpdate(after, Y.encodeStateAsUpdate(replica.doc))
        if (update !== undefined) Y.applyUpdate(after, update)
        return Y.encodeStateAsUpdate(after)
      } finally {
        after.destroy()
      }
    },
    close() {
      for (const docId of served.keys()) detach(docId)
    },
  }
}
