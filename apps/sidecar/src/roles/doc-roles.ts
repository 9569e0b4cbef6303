/**
 * A document's roles as its group was last listed (roles/roles.ts writes the rule): this
 * sidecar's own role, which its pages are told and which refuses their changes when it is
 * `viewer`, and each member's, which drops a viewer's content from the group. A commenter's
 * update passes only when it touches nothing but the review structure (`checkReviewOnlyUpdate`
 * on this replica, decision 0034); its other content kinds are dropped as a viewer's. A dropped
 * envelope is counted (`received_dropped{reason="viewer-content"|"commenter-content"}`) and its
 * member logged once.
 * @see docs/documents.md "Roles"
 */
import type { Kind } from '@e2e-col/protocol'
import { checkReviewOnlyUpdate } from '@e2e-col/review'
import type * as Y from 'yjs'
import type { MemberId } from '../group/roster.ts'
import { ALL_EDITORS, type GroupRoles, type Role } from './roles.ts'
import { sourceKey } from '../group/members.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'

// Members named in a log line at most once each; beyond this many, no more lines (the count goes on).
const MAX_LOGGED = 1024

/** What the rest of the sidecar asks of a document's roles (`doc.roles`). */
export interface RoleSide {
  /**
   * The group's roles as listed now (the listing asked for at `askedAt`, when known); a change of
   * this account's own role is told to the pages.
   */
  set(roles: GroupRoles, askedAt?: number): void
  /** This account's role in the document. */
  self(): Role
  /** The members who may answer the group's sync requests (undefined: every member). */
  answerers(): readonly string[] | undefined
  /** True (counted, logged once) when `from` is a viewer, whose content is dropped. */
  refusesContent(from: MemberId | undefined): boolean
}

export interface DocumentRoles {
  /** This sidecar's own role in the document. */
  self(): Role
  /** The members who may answer the group's sync requests (undefined: every member). */
  editors(): readonly string[] | undefined
  /** Takes a listing's roles; true when this sidecar's own role changed. */
  set(roles: GroupRoles): boolean
  /**
   * True (counted, logged once per member) when `from`'s content of this kind is dropped: a
   * viewer's, or a commenter's other than an update (its updates are {@link reviewOnly}'s).
   */
  refuses(from: MemberId | undefined, kind: Kind): boolean
  /**
   * A member's update as the replica may apply it: unchanged from an editor, cut of its delete
   * set from a commenter whose update writes only review entries, undefined (counted) otherwise.
   */
  reviewOnly(from: MemberId | undefined, update: Uint8Array): Uint8Array | undefined
  /**
   * This account's own change (a page's, or one the sidecar makes) as the replica may apply it:
   * unchanged for an editor, undefined for a viewer, and for a commenter as {@link reviewOnly}.
   */
  mine(update: Uint8Array): Uint8Array | undefined
  /** True when `from` is no editor (nothing counted): what it announces binds nothing but its own ids. */
  isViewer(from: MemberId | undefined): boolean
}

export function createDocumentRoles(o: {
  docId: string
  /** The replica a commenter's update is checked against (read, never written). */
  replica: Y.Doc
  metrics: Metrics
  logger: Logger
}): DocumentRoles {
  let roles: GroupRoles = ALL_EDITORS
  const logged = new Set<string>()
  function dropped(from: MemberId | undefined, kind: Kind, role: Role, why?: string): true {
    o.metrics.receivedDropped.inc({ reason: `${role}-content` })
    const key = sourceKey(from?.uuid, from?.number)
    if (!logged.has(key) && logged.size < MAX_LOGGED) {
      logged.add(key)
      o.logger.warn(
        { docId: o.docId, member: from?.number ?? from?.uuid ?? 'unknown', kind, role, ...(why && { why }) },
        `dropped content from a ${role} of this document (only editors change it); further drops are counted only`,
      )
    }
    return true
  }
  return {
    self: () => roles.self,
    editors: () => (roles.on ? roles.editors : undefined),
    set(next) {
      const changed = next.self !== roles.self
      roles = next
      return changed
    },
    isViewer: (from) => roles.of(from) !== 'editor',
    refuses(from, kind) {
      const role = roles.of(from)
      if (role === 'editor' || (role === 'commenter' && kind === 'update')) return false
      return dropped(from, kind, role)
    },
    mine(update) {
      if (roles.self === 'editor') return update
      if (roles.self === 'viewer') return undefined
      const r = checkReviewOnlyUpdate(o.replica, update)
      return r.ok ? r.update : undefined
    },
    reviewOnly(from, update) {
      if (roles.of(from) !== 'commenter') return update
      const r = checkReviewOnlyUpdate(o.replica, update)
      if (r.ok) return r.update
      dropped(from, 'update', 'commenter', r.violation.code)
      return undefined
    },
  }
}
