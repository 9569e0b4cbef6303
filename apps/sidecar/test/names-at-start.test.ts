/**
 * The contacts are read at start, before any presence is stamped: the first presence a page sees
 * of a member already carries the name this person's contacts give them (before, the first ones
 * carried the member's number until the contacts were read in the background).
 */
import { randomUUID } from 'node:crypto'
import { createToySignal } from '@e2e-col/toy-signal'
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { describe, expect, it, onTestFinished } from 'vitest'
import { A, B, baseEnv, connect, envelope, pageDoc, sidecar, type Client } from './harness.ts'

/** The first state of `clientID` the page was sent, applying its awareness envelopes in order. */
function firstState(c: Client, clientID: number): unknown {
  const view = new Awareness(new Y.Doc())
  try {
    for (const e of c.received) {
      if (e.kind !== 'awareness') continue
      applyAwarenessUpdate(view, e.payload, 'test')
      const state = view.getStates().get(clientID)
      if (state !== undefined) return state
    }
    return undefined
  } finally {
    view.destroy()
  }
}

describe('names read at start', () => {
  it("labels a member's very first presence with the contact's name, not the number", async () => {
    const toy = await createToySignal({
      accounts: [A, B],
      groups: [{ name: 'doc', members: [A, B] }],
      contacts: { [A]: { [B]: 'Bob' } },
      keepAliveMs: 1000,
    })
    onTestFinished(() => toy.close())
    const docId = randomUUID()
    const [a, b] = await Promise.all([sidecar(baseEnv(toy, A, docId)), sidecar(baseEnv(toy, B, docId))])
    const [a1, b1] = await Promise.all([connect(a, docId), connect(b, docId)])
    const bob = new Awareness(await pageDoc(b1))
    onTestFinished(() => bob.destroy())
    bob.setLocalStateField('user', { name: 'Bobby' })
    b1.send(envelope(docId, b1.senderId, encodeAwarenessUpdate(bob, [bob.clientID]), 'awareness'))
    await expect.poll(() => firstState(a1, bob.clientID), { timeout: 10_000 }).toBeDefined()
    expect(firstState(a1, bob.clientID)).toEqual({
      user: { name: 'Bob', pickedName: 'Bobby' },
      signal: { number: B, shown: 'Bob' },
    })
  })
})
