/**
 * A person's own edits go first (docs/sidecar.md §4.5): between two bodies of a long send of
 * others' traffic, with the next token taken, one waiting own change that fits one body goes
 * ahead of the next body.
 */
import type { Metrics } from '../ops/metrics.ts'
import type { FairOrder } from './fair-order.ts'
import type { Packing } from './packing.ts'
import type { Sender } from './sender.ts'

export interface OwnFirstParts {
  readonly order: Pick<FairOrder, 'takeFirst' | 'insert'>
  readonly packing: Pick<Packing, 'pack'>
  readonly sender: Pick<Sender, 'send'>
  readonly beforeSend?: (messageIds: readonly string[]) => void
  readonly onUnsent?: (messageIds: readonly string[]) => void
  readonly metrics: Metrics
}

/**
 * Sends one waiting own change on the token already taken: 'sent' when it did (the token is
 * spent), 'none' when there was none that fits one body, 'closed' when the queue closed.
 */
export function createOwnFirst(o: OwnFirstParts): () => Promise<'sent' | 'none' | 'closed'> {
  return async () => {
    const own = o.order.takeFirst()
    if (own === undefined) return 'none'
    const packed = o.packing.pack([own])
    const body = packed.bodies[0]
    if (packed.bodies.length !== 1 || body === undefined) {
      o.order.insert(own) // a long change waits its turn like any envelope
      return 'none'
    }
    o.beforeSend?.([own.messageId])
    const outcome = await o.sender.send(body, true)
    if (outcome.kind === 'closed') return 'closed'
    if (outcome.kind === 'sent') {
      o.metrics.bodiesSent.inc({ mode: 'single' })
      own.owner.ack(own.messageId)
    } else {
      o.metrics.sendFailures.inc({ outcome: 'rejected' })
      own.owner.reject(own.messageId, outcome.code, outcome.message)
      o.onUnsent?.([own.messageId])
    }
    return 'sent'
  }
}
