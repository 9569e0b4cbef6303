import { describe, expect, it } from 'vitest'
import { createInbox } from './inbox.ts'
import { createSentTimestamps } from './sent-timestamps.ts'

const item = (n: number) => ({ text: `p${n}`, author: '+1', timestamp: n })

describe('bounded inbox', () => {
  it('keeps order and reports each position', () => {
    const inbox = createInbox(3)
    expect(inbox.offer(item(1))).toEqual({ taken: true, position: 1 })
    expect(inbox.offer(item(2))).toEqual({ taken: true, position: 2 })
    expect(inbox.take()?.text).toBe('p1')
    expect(inbox.take()?.text).toBe('p2')
    expect(inbox.take()).toBeUndefined()
  })
  it('refuses when full instead of evicting what was accepted', () => {
    const inbox = createInbox(2)
    inbox.offer(item(1))
    inbox.offer(item(2))
    expect(inbox.offer(item(3))).toEqual({ taken: false })
    expect(inbox.drain().map((i) => i.text)).toEqual(['p1', 'p2'])
    expect(inbox.size).toBe(0)
  })
  it('rejects a non-positive capacity', () => {
    expect(() => createInbox(0)).toThrow('inbox capacity must be a positive integer')
    expect(createInbox(1).capacity).toBe(1)
    expect(() => createInbox(1.5)).toThrow(RangeError)
  })
})

describe('sent timestamps', () => {
  it('remembers up to its bound, forgetting the oldest first', () => {
    const sent = createSentTimestamps(2)
    sent.remember(1)
    sent.remember(2)
    sent.remember(3)
    expect(sent.has(1)).toBe(false)
    expect(sent.has(2) && sent.has(3)).toBe(true)
    expect(sent.size).toBe(2)
  })
})
