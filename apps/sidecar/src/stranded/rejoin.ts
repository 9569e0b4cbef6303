/**
 * The collection's side of a rejoin (decisions/0032): the document's update log becomes the
 * group's state alone (history's unsettled stamps cleared first, so no row of what the group lacks
 * is loaded again), and the document is served anew from it. Its pages are disconnected and
 * reconnect to the rebuilt replica; the new document is given the roles and members of the old.
 */
import { CLOSE_CODES } from '@e2e-col/protocol'
import type { MemberId } from '../group/roster.ts'
import type { GroupRoles } from '../roles/roles.ts'
import type { HistoryTable } from '../history/history-table.ts'
import type { DocReplica } from '../replica/replica.ts'
import { loadReplica } from '../replica/replica.ts'
import type { ReplicaStore } from '../replica/store.ts'
import type { Carried } from './rejoin-port.ts'

// Every row of the document's log (history's stamps are cleared up to this row id).
const ALL_ROWS = Number.MAX_SAFE_INTEGER

/** What a rejoin needs of a served document (the collection's `Document`, seen narrowly). */
export interface Served {
  readonly groupId: string
  readonly group: { setMembers(members: readonly MemberId[]): void }
  readonly roles: { set(roles: GroupRoles): void }
}

export interface RejoinParts {
  readonly store: Pick<ReplicaStore, 'replaceUpdates'> & Parameters<typeof loadReplica>[0]
  readonly history: Pick<HistoryTable, 'settle'>
  readonly storing: <T>(fn: () => T) => T | undefined
  readonly get: (docId: string) => Served | undefined
  readonly remove: (docId: string, code: number, reason: string) => void
  readonly add: (docId: string, groupId: string, replica: DocReplica) => Served
}

/** Serves `docId` anew from `state`; nothing happens when it is no longer served or the store failed. */
export function rejoinDocument(p: RejoinParts, docId: string, state: Uint8Array | undefined, carried: Carried): void {
  const doc = p.get(docId)
  if (doc === undefined) return
  const groupId = doc.groupId
  p.remove(docId, CLOSE_CODES.GOING_AWAY, 'served anew after a demotion; reconnect')
  const replica = p.storing(() => {
    if (state !== undefined) {
      p.history.settle(docId, ALL_ROWS, [], ALL_ROWS)
      p.store.replaceUpdates(docId, state)
    }
    return loadReplica(p.store, docId)
  })
  if (replica === undefined) return
  const next = p.add(docId, groupId, replica)
  if (carried.members !== undefined) next.group.setMembers(carried.members)
  if (carried.roles !== undefined) next.roles.set(carried.roles)
}
