import { describe, expect, it } from 'vitest'
import { createFairOrder } from './fair-order.ts'
import type { QueuedEnvelope } from './queue.ts'

const NO_OWNER = { ack: () => {}, reject: () => {} }
const item = (messageId: string, source?: object, bytes = 10): QueuedEnvelope => ({
  frame: new Uint8Array(bytes),
  messageId,
  owner: NO_OWNER,
  ...(source === undefined ? {} : { source }),
})
const ids = (items: readonly QueuedEnvelope[]) => items.map((i) => i.messageId)
/** An order holding `entries` ([id, bytes]) of one source, in that order. */
function filled(source: object, ...entries: [string, number][]) {
  const order = createFairOrder()
  for (const [id, bytes] of entries) order.insert(item(id, source, bytes))
  return order
}

describe('fair order of a group queue', () => {
  it('gives each source one turn per round, keeping each source in its own order', () => {
    const order = createFairOrder()
    const flood = {}
    const quiet = {}
    for (const id of ['f1', 'f2', 'f3']) order.insert(item(id, flood))
    order.insert(item('q1', quiet))
    order.insert(item('q2', quiet))
    expect(ids(order.items)).toEqual(['f1', 'q1', 'f2', 'q2', 'f3'])
  })

  it('never lets a new envelope pass the pinned front, and counts bytes in and out', () => {
    const order = filled({}, ['a1', 5], ['a2', 7])
    order.pin(2)
    order.insert(item('b1', {}, 11))
    expect(ids(order.items)).toEqual(['a1', 'a2', 'b1'])
    expect(order.bytes).toBe(23)
    expect(ids(order.takeWaiting())).toEqual(['b1'])
    expect(order.bytes).toBe(12)
    expect(ids(order.removeFront(2))).toEqual(['a1', 'a2'])
    expect(order.pinned).toBe(0)
    expect(order.bytes).toBe(0)
  })

  it('a source served earlier does not jump ahead of a round already under way', () => {
    const order = createFairOrder()
    const a = {}
    const b = {}
    order.insert(item('a1', a))
    order.insert(item('a2', a))
    order.removeFront(1) // a1 sent: the round moves on
    order.insert(item('b1', b))
    order.insert(item('a3', a))
    expect(ids(order.items)).toEqual(['a2', 'b1', 'a3'])
  })

  it('replaces the front with its compressed form in place, bytes adjusted', () => {
    const order = filled({}, ['x', 100], ['y', 10])
    order.pin(1)
    order.replaceFront(item('x', undefined, 40))
    expect(ids(order.items)).toEqual(['x', 'y'])
    expect(order.items[0]?.frame.byteLength).toBe(40)
    expect(order.bytes).toBe(50)
    // The replacement keeps its turn: once it is sent, a newcomer from another source waits for
    // the next round, behind y.
    order.removeFront(1)
    order.insert(item('z', {}))
    expect(ids(order.items)).toEqual(['y', 'z'])
  })
})
