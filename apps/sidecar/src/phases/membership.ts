/**
 * Phase 3, membership: the sidecar's one membership owner, from the listing the daemon checks read,
 * listing every group again each E2E_COL_MEMBERS_REFRESH_MS.
 */
import { createGroupMembership, type GroupMembership } from '../group/membership.ts'
import type { DaemonFacts } from '../startup.ts'
import type { Basics, Phase } from './phase.ts'

export function followMembership(
  b: Pick<Basics, 'config' | 'backend' | 'clock' | 'logger'>,
  facts: DaemonFacts,
): Phase<GroupMembership> {
  const membership = createGroupMembership({
    initial: facts.groups,
    account: b.config.signal.account,
    list: (groupId) => b.backend.listGroups(groupId),
    refreshMs: b.config.membersRefreshMs,
    now: b.clock.now,
    onListFailed: (error) => b.logger.warn({ err: error }, 'listGroups failed; keeping the last member lists'),
    onSubscriberFailed: (error) => b.logger.error({ err: error }, 'a part failed to take a group listing'),
  })
  return { part: membership, close: () => membership.dispose() }
}
