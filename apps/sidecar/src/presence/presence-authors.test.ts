import { clientIdFor } from '@e2e-col/protocol'
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { keepOwnStates } from './presence-authors.ts'

/** A page's awareness under `clientId` (derived ids are above 2^32). */
function pageAt(clientId: number, name: string): Awareness {
  const doc = new Y.Doc()
  doc.clientID = clientId
  const a = new Awareness(doc)
  a.setLocalState({ user: { name } })
  return a
}

describe("a member's presence bound to its own client ids", () => {
  const alice = clientIdFor(1100, 5)
  const carol = clientIdFor(3000, 6)

  it("cuts another's state and removal out of a payload, keeping the sender's own", () => {
    const a = pageAt(alice, 'Alice')
    const c = pageAt(carol, 'Carol')
    // Carol's sidecar relays a payload naming both, as a hostile member would.
    const mirror = new Awareness(new Y.Doc())
    applyAwarenessUpdate(mirror, encodeAwarenessUpdate(a, [alice]), 'x')
    applyAwarenessUpdate(mirror, encodeAwarenessUpdate(c, [carol]), 'x')
    removeAwarenessStates(mirror, [alice], 'x')
    const both = encodeAwarenessUpdate(mirror, [alice, carol])
    const kept = keepOwnStates(both, (id) => id === carol)
    expect(kept?.refused).toBe(1)
    const seen = new Awareness(new Y.Doc())
    applyAwarenessUpdate(seen, encodeAwarenessUpdate(a, [alice]), 'x')
    applyAwarenessUpdate(seen, kept?.payload as Uint8Array, 'group')
    expect(seen.getStates().get(alice)).toEqual({ user: { name: 'Alice' } })
    expect(seen.getStates().get(carol)).toEqual({ user: { name: 'Carol' } })
    a.destroy()
    c.destroy()
    mirror.destroy()
    seen.destroy()
  })

  it('answers a payload with nothing cut as it came, and undefined for a malformed one', () => {
    const c = pageAt(carol, 'Carol')
    const own = encodeAwarenessUpdate(c, [carol])
    expect(keepOwnStates(own, () => true)).toEqual({ payload: own, kept: 1, refused: 0 })
    expect(keepOwnStates(own.subarray(0, own.length - 2), () => true)).toBeUndefined()
    expect(keepOwnStates(Uint8Array.of(0xff), () => true)).toBeUndefined()
    expect(keepOwnStates(Uint8Array.of(2, 1, 1, 0), () => true)).toBeUndefined()
    c.destroy()
  })
})
