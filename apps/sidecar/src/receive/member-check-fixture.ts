/**
 * For the membership tests: the groups they list, a data message's source as the events stream
 * names it, and the receive check over a membership owner whose daemon the test scripts.
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { createGroupMembership } from '../group/membership.ts'
import { createMembership, type Membership, type MembershipOptions, type MessageSource } from './member-check.ts'

/** The group every membership test checks. */
export const G = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
/** A second group, for listings that name several. */
export const OTHER = 'Qmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

/** The source of a data message (not a sync copy) from `sourceNumber` and/or `sourceUuid`. */
export const data = (sourceNumber: string | undefined, sourceUuid?: string): MessageSource => ({
  origin: 'data',
  sourceNumber,
  sourceUuid,
})

/** The options of a receive check over its own membership owner, as the tests script the daemon. */
export interface CheckedMembershipOptions extends Omit<MembershipOptions, 'membership'> {
  readonly account: string | undefined
  readonly initial: GroupListing
  readonly list: (groupId?: string) => Promise<GroupListing>
  readonly refreshMs: number
}

/** A receive check over a membership owner of its own; `dispose` disposes both. */
export function checkedMembership(o: CheckedMembershipOptions): Membership {
  const owner = createGroupMembership({
    initial: o.initial,
    account: o.account,
    list: o.list,
    refreshMs: o.refreshMs,
    now: o.now,
    onListFailed: o.onListFailed,
    onSubscriberFailed: (error) => {
      throw error
    },
  })
  const check = createMembership({ ...o, membership: owner })
  return {
    ...check,
    dispose() {
      check.dispose()
      owner.dispose()
    },
  }
}
