/**
 * What a document needs to settle a demotion (demotion.ts): the sidecar's not-shared book, who last
 * changed its group (a demotion names them), and the
 * collection's way to serve the document anew from the group's state. `carried` is what the new
 * document is given at once, so it never serves a moment as an editor it is not.
 */
import type { MemberId } from '../group/roster.ts'
import type { GroupRoles } from '../roles/roles.ts'
import type { NotSharedBook } from './not-shared-book.ts'

export interface Carried {
  readonly roles: GroupRoles | undefined
  readonly members: readonly MemberId[] | undefined
}

/** The last group update of a document's group: who sent it (a number), and when it was received. */
export interface Changer {
  readonly number: string
  readonly at: number
}

export interface RejoinPort {
  readonly book: NotSharedBook
  /** The last group update received for the document's group that named its sender, if any. */
  changer(): Changer | undefined
  /**
   * Serves the document anew (later, not inside this call): its replica rebuilt from `state`
   * alone, or loaded again as it is (undefined); the old document's queue closes unsent.
   */
  rejoin(state: Uint8Array | undefined, carried: Carried): void
}
