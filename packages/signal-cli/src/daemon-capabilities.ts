/**
 * What a daemon accepts, from its `version` answer. A param an older signal-cli does not know is
 * never sent to it: JSON-RPC params land in a map there, so it would be dropped silently, and a
 * later release could give the same name another meaning.
 * @see reference `signal-cli-wire.md` §8 (what changed when)
 */

/** `send --no-urgent` (no push notification to the recipient's phone) arrived in signal-cli 0.14.0. */
export const NO_URGENT_SINCE: readonly [number, number, number] = [0, 14, 0]

function release(version: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version)
  return m === null ? undefined : [Number(m[1]), Number(m[2]), Number(m[3])]
}

/** True when `version` is `since` or later; an unknown or unparsable version is never. */
export function versionAtLeast(version: string | undefined, since: readonly [number, number, number]): boolean {
  const have = version === undefined ? undefined : release(version)
  if (have === undefined) return false
  for (let i = 0; i < 3; i += 1) if (have[i] !== since[i]) return (have[i] ?? 0) > (since[i] ?? 0)
  return true
}

/** Whether `send` may carry `noUrgent` to a daemon that answered `version` so (`undefined`: no such method). */
export function supportsNoUrgent(version: string | undefined): boolean {
  return versionAtLeast(version, NO_URGENT_SINCE)
}

/** Member labels (`updateGroup --member-label`, listed with each member) arrived in signal-cli 0.14.1. */
export const MEMBER_LABELS_SINCE: readonly [number, number, number] = [0, 14, 1]

/** Whether `updateGroup` may carry `memberLabel` to a daemon that answered `version` so. */
export function supportsMemberLabels(version: string | undefined): boolean {
  return versionAtLeast(version, MEMBER_LABELS_SINCE)
}

/** `terminateGroup` (an admin ends a group for everyone; `isTerminated` in listGroups) arrived in signal-cli 0.14.8. */
export const TERMINATE_GROUP_SINCE: readonly [number, number, number] = [0, 14, 8]

/** Whether a daemon that answered `version` so has `terminateGroup`. */
export function supportsTerminateGroup(version: string | undefined): boolean {
  return versionAtLeast(version, TERMINATE_GROUP_SINCE)
}

/**
 * `sendAdminDelete` (a group admin deletes someone else's message from every member's history)
 * arrived in signal-cli 0.14.0 (commit "Add support for sending adminDelete messages", first in
 * tag v0.14.0; the change log does not name it). Receivers ignore one from a non-admin.
 */
export const ADMIN_DELETE_SINCE: readonly [number, number, number] = [0, 14, 0]

/** Whether a daemon that answered `version` so has `sendAdminDelete`. */
export function supportsAdminDelete(version: string | undefined): boolean {
  return versionAtLeast(version, ADMIN_DELETE_SINCE)
}
