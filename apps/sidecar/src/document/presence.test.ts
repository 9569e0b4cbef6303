import { describe, expect, it } from 'vitest'
import type { Session } from '../browser/session.ts'
import type { QueuedEnvelope } from '../send/queue.ts'
import { createPresence } from './presence.ts'

/** Timers run by hand: `run()` fires what is due. */
function manualTimers() {
  let now = 0
  const due: { at: number; fn: () => void }[] = []
  return {
    now: () => now,
    setTimeout: (fn: () => void, ms: number) => due.push({ at: now + ms, fn }),
    clearTimeout: () => {},
    advance(ms: number) {
      now += ms
      for (const t of due.splice(0).sort((a, b) => a.at - b.at))
        if (t.at <= now) t.fn()
        else due.push(t)
    },
  }
}

function page() {
  const told: string[] = []
  const session = {
    ack: (id: string) => void told.push(`ack ${id}`),
    refuse: (code: string) => void told.push(`refuse ${code}`),
  } as unknown as Session
  return { session, told }
}

describe('presence on its way to Signal', () => {
  it('still sends the last frame of a page that left (often its removal), telling no one', () => {
    const timers = manualTimers()
    const queued: QueuedEnvelope[] = []
    const presence = createPresence({
      queue: { enqueue: (item) => queued.push(item) > 0, waiting: 0 },
      markSent: () => {},
      intervalMs: 2000,
      timers,
    })
    const { session, told } = page()
    presence.offer(session, 's1', 'm1', new Uint8Array([1]))
    presence.offer(session, 's1', 'm2', new Uint8Array([2]))
    presence.forget(session)
    timers.advance(2000)
    expect(queued.map((q) => q.messageId)).toEqual(['m2'])
    queued[0]?.owner.ack('m2')
    // The replaced frame was acknowledged when replaced; nothing reaches the page after it left.
    expect(told).toEqual(['ack m1'])
    expect(presence.waiting).toBe(0)
  })
})
