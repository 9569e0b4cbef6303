/**
 * A document's roles as its group was last listed (group/roles.ts writes the rule): this
 * sidecar's own role, which its pages are told and which refuses their changes when it is
 * `viewer`, and each member's, which drops a viewer's content from the group. A dropped envelope
 * is counted (`received_dropped{reason="viewer-content"}`) and its member logged once.
 * @see docs/documents.md "Roles"
 */
import type { Kind } from '@e2e-col/protocol'
import type { MemberId } from '../group/roster.ts'
import { ALL_EDITORS, type GroupRoles, type Role } from '../group/roles.ts'
import { sourceKey } from '../group/members.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'

// Members named in a log line at most once each; beyond this many, no more lines (the count goes on).
const MAX_LOGGED = 1024

/** What the rest of the sidecar asks of a document's roles (`doc.roles`). */
export interface RoleSide {
  /** The group's roles as listed now; a change of this account's own role is told to the pages. */
  set(roles: GroupRoles): void
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
  /** True (counted, logged once per member) when `from` is a viewer: its content is dropped. */
  refuses(from: MemberId | undefined, kind: Kind): boolean
  /** True when `from` is a viewer (nothing counted): what it announces binds nothing but its own ids. */
  isViewer(from: MemberId | undefined): boolean
}

export function createDocumentRoles(o: { docId: string; metrics: Metrics; logger: Logger }): DocumentRoles {
  let roles: GroupRoles = ALL_EDITORS
  const logged = new Set<string>()
  return {
    self: () => roles.self,
    editors: () => (roles.on ? roles.editors : undefined),
    set(next) {
      const changed = next.self !== roles.self
      roles = next
      return changed
    },
    isViewer: (from) => roles.of(from) === 'viewer',
    refuses(from, kind) {
      if (roles.of(from) !== 'viewer') return false
      o.metrics.receivedDropped.inc({ reason: 'viewer-content' })
      const key = sourceKey(from?.uuid, from?.number)
      if (!logged.has(key) && logged.size < MAX_LOGGED) {
        logged.add(key)
        o.logger.warn(
          { docId: o.docId, member: from?.number ?? from?.uuid ?? 'unknown', kind },
          'dropped content from a viewer of this document (only editors change it); further drops are counted only',
        )
      }
      return true
    },
  }
}
