/**
 * Invited (pending) and requesting members of a toy group. The toy never creates them by itself;
 * the admin route (`/toy/v1/world/group-members`) sets them so tests can see how a client treats a
 * group with someone waiting at the door. Kept beside the group, not in it, keyed by the group.
 */
import type { ToyGroup } from './state.ts'

interface Requests {
  pending: string[]
  requesting: string[]
}

const byGroup = new WeakMap<ToyGroup, Requests>()

/** Replaces the group's pending and requesting members (numbers). */
export function setGroupRequests(group: ToyGroup, requests: Requests): void {
  byGroup.set(group, { pending: [...new Set(requests.pending)], requesting: [...new Set(requests.requesting)] })
}

/** The group's pending and requesting members; both empty unless set. */
export function groupRequests(group: ToyGroup): Readonly<Requests> {
  return byGroup.get(group) ?? { pending: [], requesting: [] }
}
