/**
 * This account's member label in each document group: its role ("editor", "commenter",
 * "viewer"), so a phone shows beside its name what it may do. Signal lets a member label only
 * itself (signal-cli's `updateGroup memberLabel` changes the caller's own entry), so every sidecar
 * labels its own account, from the listings the membership owner takes: when it first sees the
 * group and whenever its role there changes. A daemon before signal-cli 0.14.1 has no labels: the
 * client asks it nothing, and this logs that once. At most one label call per group is in flight;
 * a refused one (a group whose phones let only admins set labels, or no network) is logged and
 * not asked again for that role until the role changes or the sidecar restarts.
 * @see docs/decisions/0037-member-labels-and-admin-delete.md
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import type { Logger } from '../ops/logger.ts'

/** Who this sidecar is in a listing. */
export interface SelfId {
  readonly uuid?: string | undefined
  readonly number?: string | undefined
}

export interface SelfLabelOptions {
  /** The client's `labelSelf`: false, asking nothing, when the daemon predates labels. */
  readonly labelSelf: (groupId: string, label: string) => Promise<boolean>
  readonly self: SelfId
  readonly logger: Pick<Logger, 'info' | 'warn'>
}

export interface SelfLabels {
  /** A listing showed `entry` for a served document whose own role is now `role`. */
  seen(entry: GroupListing[number], role: string): void
  /** Label calls in flight (tests wait on it). */
  inFlight(): number
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
}

/** This account's label as `entry` lists it (signal-cli 0.14.1+ lists `label` with each member). */
export function ownLabelIn(entry: GroupListing[number], self: SelfId): string | undefined {
  for (const m of entry.members ?? []) {
    const r = recordOf(m)
    if (r === undefined) continue
    const mine =
      (self.uuid !== undefined && r['uuid'] === self.uuid) || (self.number !== undefined && r['number'] === self.number)
    if (mine) return typeof r['label'] === 'string' ? r['label'] : undefined
  }
  return undefined
}

export function createSelfLabels(o: SelfLabelOptions): SelfLabels {
  const pending = new Set<string>()
  // The role last asked for (or refused) per group: not asked again until the role changes.
  const asked = new Map<string, string>()
  let unsupported = false

  const ask = (groupId: string, role: string): void => {
    pending.add(groupId)
    asked.set(groupId, role)
    o.labelSelf(groupId, role).then(
      (done) => {
        pending.delete(groupId)
        if (done || unsupported) return
        unsupported = true
        o.logger.info({}, 'the Signal daemon predates member labels (signal-cli 0.14.1): roles are not shown as labels')
      },
      (error: unknown) => {
        pending.delete(groupId)
        o.logger.warn({ err: error, groupId }, 'could not set this account’s member label in a document group')
      },
    )
  }

  return {
    seen(entry, role) {
      if (unsupported || entry.isMember === false || entry.isTerminated === true) return
      if (pending.has(entry.id) || asked.get(entry.id) === role) return
      if (ownLabelIn(entry, o.self) === role) {
        asked.set(entry.id, role)
        return
      }
      ask(entry.id, role)
    },
    inFlight: () => pending.size,
  }
}
