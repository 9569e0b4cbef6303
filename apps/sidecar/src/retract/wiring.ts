/** Builds the retractions of the receive phase from the backend, when it has admin delete. */
import type { SignalDocumentMethods } from '@e2e-col/signal-cli'
import type { GroupMembership } from '../group/membership.ts'
import { membersIn } from '../group/members.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import { createRetractions, type Retractions } from './retractions.ts'

/** Undefined with a backend that has no `adminDelete` (tests' in-process fakes). */
export function retractionsFor(
  b: {
    readonly backend: object
    readonly clock: { now(): number }
    readonly logger: Logger
    readonly metrics: Metrics
  },
  membership: Pick<GroupMembership, 'groups' | 'self'>,
): Retractions | undefined {
  const { backend } = b
  const adminDelete = (backend as Partial<Pick<SignalDocumentMethods, 'adminDelete'>>).adminDelete
  if (adminDelete === undefined) return undefined
  const isAdmin = (groupId: string): boolean => {
    const self = membership.self
    return membersIn(membership.groups().find((g) => g.id === groupId)).some(
      (m) =>
        m.admin &&
        ((self.number !== undefined && m.number === self.number) || (self.uuid !== undefined && m.uuid === self.uuid)),
    )
  }
  return createRetractions({
    adminDelete: (groupId, target) => adminDelete.call(backend, groupId, target),
    isAdmin,
    now: () => b.clock.now(),
    logger: b.logger,
    counted: (outcome) => b.metrics.retractions.inc({ outcome }),
  })
}
