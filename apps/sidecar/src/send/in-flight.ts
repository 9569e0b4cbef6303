/**
 * Envelopes queued for Signal but not yet settled, by message id. A browser that replays an id
 * still in flight (it reconnected before the ack) is added as one more owner instead of queueing
 * the envelope again, so one message id is never sent twice by one sidecar.
 */
import type { SendOwner } from './queue.ts'

export interface InFlight {
  /**
   * Claims `messageId` for `owner`. Returns the owner to queue the envelope with, or undefined
   * when the id is already in flight (the owner will be told with the others).
   */
  claim(messageId: string, owner: SendOwner): SendOwner | undefined
  /** Forgets ids dropped without an outcome for their owners. */
  release(messageIds: readonly string[]): void
  readonly size: number
}

export function createInFlight(): InFlight {
  const owners = new Map<string, SendOwner[]>()
  return {
    claim(messageId, owner) {
      const list = owners.get(messageId)
      if (list !== undefined) {
        list.push(owner)
        return undefined
      }
      owners.set(messageId, [owner])
      return {
        ack(id) {
          for (const o of owners.get(id) ?? []) o.ack(id)
          owners.delete(id)
        },
        reject(id, code, message) {
          for (const o of owners.get(id) ?? []) o.reject(id, code, message)
          owners.delete(id)
        },
      }
    },
    release(messageIds) {
      for (const id of messageIds) owners.delete(id)
    },
    get size() {
      return owners.size
    },
  }
}
