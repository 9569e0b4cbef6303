/**
 * Presence through two sidecars: a page's presence leaves with its socket even when the page sent
 * no goodbye (a crash, a lost network), and a page that connects is greeted with who is present.
 */
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { B, connect, envelope, pageDoc, startPair, type Client } from './harness.ts'

/** Whether applying every awareness envelope `c` received, in order, leaves `clientID` present. */
function shows(c: Client, clientID: number): boolean {
  const view = new Awareness(new Y.Doc())
  for (const e of c.received) if (e.kind === 'awareness') applyAwarenessUpdate(view, e.payload, 'test')
  const present = view.getStates().has(clientID)
  view.destroy()
  return present
}

describe("a document's presence on the sidecars", () => {
  it("drops a page's presence when its socket closes, at the other page of its sidecar and across the group", async () => {
    const p = await startPair()
    const [a1, a2, b1] = await Promise.all([connect(p.a, p.docId), connect(p.a, p.docId), connect(p.b, p.docId)])
    const alice = new Awareness(await pageDoc(a1))
    alice.setLocalStateField('user', { name: 'Alice' })
    a1.send(envelope(p.docId, a1.senderId, encodeAwarenessUpdate(alice, [alice.clientID]), 'awareness'))
    await expect.poll(() => shows(b1, alice.clientID), { timeout: 10_000 }).toBe(true)
    expect(shows(a2, alice.clientID)).toBe(true)
    a1.ws.terminate() // no goodbye from the page
    await expect.poll(() => shows(a2, alice.clientID), { timeout: 10_000 }).toBe(false)
    await expect.poll(() => shows(b1, alice.clientID), { timeout: 10_000 }).toBe(false)
    alice.destroy()
  })

  it('greets a page that connects with the presence already there, from its pages and the group', async () => {
    const p = await startPair()
    const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    const alice = new Awareness(await pageDoc(a1))
    alice.setLocalStateField('user', { name: 'Alice' })
    a1.send(envelope(p.docId, a1.senderId, encodeAwarenessUpdate(alice, [alice.clientID]), 'awareness'))
    await expect.poll(() => shows(b1, alice.clientID), { timeout: 10_000 }).toBe(true)
    const [a2, b2] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    // The greeting is sent on connect, before anything new happens.
    await expect.poll(() => shows(a2, alice.clientID), { timeout: 2000 }).toBe(true)
    await expect.poll(() => shows(b2, alice.clientID), { timeout: 2000 }).toBe(true)
    alice.destroy()
  })
  it("names a member's presence by its Signal sender, not by the name its page picked", async () => {
    const p = await startPair()
    const [a1, b1] = await Promise.all([connect(p.a, p.docId), connect(p.b, p.docId)])
    // Bob's page calls itself Alice, and claims a Signal sender of its own.
    const forged = new Awareness(await pageDoc(b1))
    forged.setLocalState({ user: { name: 'Alice' }, signal: { number: '+15555550101', shown: 'Alice' } })
    b1.send(envelope(p.docId, b1.senderId, encodeAwarenessUpdate(forged, [forged.clientID]), 'awareness'))
    const stateAt = (c: Client): unknown => {
      const view = new Awareness(new Y.Doc())
      for (const e of c.received) if (e.kind === 'awareness') applyAwarenessUpdate(view, e.payload, 'test')
      const state = view.getStates().get(forged.clientID)
      view.destroy()
      return state
    }
    // The toy gave Bob no name: Alice's sidecar names him by his number.
    await expect
      .poll(() => stateAt(a1), { timeout: 10_000 })
      .toEqual({ user: { name: B, pickedName: 'Alice' }, signal: { number: B, shown: B } })
    // A page that connects later is greeted with the same.
    const a2 = await connect(p.a, p.docId)
    await expect.poll(() => stateAt(a2), { timeout: 2000 }).toEqual(stateAt(a1))
    forged.destroy()
  })
})
