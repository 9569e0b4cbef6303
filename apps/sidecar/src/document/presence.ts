/**
 * A document's presence (awareness) on its way to Signal. Presence is ephemeral: only each page's
 * latest state matters, so a page's new frame replaces the one still waiting (the replaced one is
 * acknowledged: it is done with), frames above `maxBytes` are refused by the caller, and the
 * waiting frames go to the send queue together at most once per `intervalMs`, and only when no
 * other envelope waits there, so presence never goes ahead of edits.
 * @see docs/sidecar.md §4.5
 */
import type { Timers } from '@e2e-col/sync'
import type { Session } from '../browser/session.ts'
import type { QueuedEnvelope, SendQueue } from '../send/queue.ts'

export interface PresenceOptions {
  readonly queue: Pick<SendQueue, 'enqueue' | 'waiting'>
  /** Records an id about to go to the group, so Signal's copy of it is dropped. */
  readonly markSent: (senderId: string, messageId: string) => void
  readonly intervalMs: number
  readonly timers: Timers
}

export interface Presence {
  /** A page's presence frame, already shown to the other pages: it waits as that page's latest. */
  offer(session: Session, senderId: string, messageId: string, frame: Uint8Array): void
  /**
   * The page left: its waiting frame still goes (it is often the removal of its presence, the last
   * thing its peers must hear), with no one left to tell how it went.
   */
  forget(session: Session): void
  /** Frames waiting now (one per page at most). */
  readonly waiting: number
  dispose(): void
}

interface Waiting {
  readonly senderId: string
  readonly item: QueuedEnvelope
}

// The owner of a frame whose page has gone: nobody is told.
const NOBODY: QueuedEnvelope['owner'] = { ack: () => {}, reject: () => {} }

export function createPresence(o: PresenceOptions): Presence {
  const latest = new Map<Session, Waiting>()
  let timer: unknown
  let lastFlush = Number.NEGATIVE_INFINITY

  function schedule(ms: number): void {
    if (timer !== undefined) return
    timer = o.timers.setTimeout(flush, Math.max(0, ms))
  }

  function flush(): void {
    timer = undefined
    if (latest.size === 0) return
    // Edits (or anything else) still waiting go first; presence tries again an interval later.
    if (o.queue.waiting > 0) return schedule(o.intervalMs)
    lastFlush = o.timers.now()
    for (const [session, w] of latest) {
      latest.delete(session)
      o.markSent(w.senderId, w.item.messageId)
      if (!o.queue.enqueue(w.item))
        w.item.owner.reject(w.item.messageId, 'SIDECAR_QUEUE_FULL', 'the send queue of this document is full')
    }
  }

  return {
    offer(session, senderId, messageId, frame) {
      const before = latest.get(session)
      // Replaced before it went out: nothing more will happen to it.
      if (before !== undefined) before.item.owner.ack(before.item.messageId)
      const owner = {
        ack: (id: string) => session.ack(id),
        reject: (id: string, code: Parameters<Session['refuse']>[0], message: string) =>
          session.refuse(code, message, { messageId: id, strike: false }),
      }
      latest.set(session, { senderId, item: { frame, messageId, owner, source: session } })
      schedule(lastFlush + o.intervalMs - o.timers.now())
    },
    forget(session) {
      const left = latest.get(session)
      if (left !== undefined) latest.set(session, { ...left, item: { ...left.item, owner: NOBODY } })
    },
    get waiting() {
      return latest.size
    },
    dispose() {
      if (timer !== undefined) o.timers.clearTimeout(timer)
      timer = undefined
      latest.clear()
    },
  }
}
