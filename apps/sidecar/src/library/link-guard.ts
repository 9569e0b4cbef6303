/**
 * Document groups keep their invite link off (decisions/0023): a link someone's phone turned on
 * would let anyone holding it ask in, and Signal's server would admit them without any sidecar's
 * say. Whenever a listing shows a served document's group with a link and this account is one of
 * its admins (only admins change the link), the link is turned off again: one change in flight per
 * group, a failure logged and retried at the next listing that still shows the link.
 */
import type { SignalDocumentMethods } from '@e2e-col/signal-cli'
import type { Listed } from '../group/membership.ts'
import type { Logger } from '../ops/logger.ts'
import { numbersOf } from '../group/listing.ts'
import type { Shelf } from './shelf.ts'

export interface LinkGuardOptions {
  readonly backend: Pick<SignalDocumentMethods, 'updateGroup'>
  readonly you: string
  readonly shelf: Pick<Shelf, 'servedIn'>
  readonly logger: Logger
}

/** Turns a served document group's invite link off when a listing shows one. */
export function createLinkGuard(o: LinkGuardOptions): (listed: Listed) => void {
  const turning = new Set<string>()
  return (listed) => {
    for (const g of listed.listing) {
      const link = (g as { groupInviteLink?: unknown }).groupInviteLink
      if (typeof link !== 'string' || link === '' || turning.has(g.id)) continue
      const docId = o.shelf.servedIn(g.id)
      if (docId === undefined || !numbersOf(g.admins).includes(o.you)) continue
      turning.add(g.id)
      o.backend
        .updateGroup(g.id, { link: 'disabled' })
        .then(
          () => o.logger.info({ docId }, "turned off the invite link someone turned on for a document's group"),
          (error: unknown) => o.logger.warn({ err: error, docId }, "could not turn off a document group's invite link"),
        )
        .finally(() => turning.delete(g.id))
    }
  }
}
