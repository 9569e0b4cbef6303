/**
 * Invited (pending) and requesting members of a toy group, set from outside: the admin route
 * (`/toy/v1/world/group-members`) lets tests see how a client treats a group with someone waiting
 * at the door. The lists are the group's own (`ToyGroup.pending`, `ToyGroup.requesting`), which
 * `updateGroup` also fills (group-admin.ts).
 */
import type { ToyGroup } from './state.ts'

interface Requests {
  pending: string[]
  requesting: string[]
}

/** Replaces the group's pending and requesting members (numbers). */
export function setGroupRequests(group: ToyGroup, requests: Requests): void {
  group.pending = [...new Set(requests.pending)]
  group.requesting = [...new Set(requests.requesting)]
}

/** The group's pending and requesting members. */
export function groupRequests(group: ToyGroup): Readonly<Requests> {
  return { pending: group.pending, requesting: group.requesting }
}
